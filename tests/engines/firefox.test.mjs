// The smoke suite in Debian's Firefox ESR, headless (puppeteer-core over WebDriver BiDi).
import { smokeSuite } from './smoke.mjs';

smokeSuite('firefox');
