// The smoke suite in WebKitGTK's MiniBrowser under Xvfb (selenium-webdriver + WebKitWebDriver).
import { smokeSuite } from './smoke.mjs';

smokeSuite('webkit');
