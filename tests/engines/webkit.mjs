// WebKitGTK (Safari's engine): Debian's WebKitWebDriver starts MiniBrowser, which has no
// headless mode, so both run under xvfb-run; selenium-webdriver drives them. No downloads.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createServer } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { Builder, Key, Origin } from 'selenium-webdriver';

const MINIBROWSER = '/usr/lib/x86_64-linux-gnu/webkit2gtk-4.1/MiniBrowser';
const KEYS = { ArrowUp: Key.ARROW_UP, ArrowDown: Key.ARROW_DOWN, ArrowLeft: Key.ARROW_LEFT, ArrowRight: Key.ARROW_RIGHT, Enter: Key.ENTER, Tab: Key.TAB };

const freePort = () => new Promise((resolve, reject) => {
  const probe = createServer().once('error', reject).listen(0, '127.0.0.1', () => {
    const { port } = probe.address();
    probe.close(() => resolve(port));
  });
});

async function untilListening(url, driverProcess) {
  for (let tries = 0; tries < 100; tries++) {
    if (driverProcess.exitCode !== null) throw new Error(`WebKitWebDriver exited (${driverProcess.exitCode})`);
    try {
      if ((await fetch(`${url}/status`)).ok) return;
    } catch { /* not yet listening */ }
    await sleep(100);
  }
  throw new Error('WebKitWebDriver did not start within 10 s');
}

// xvfb-run, Xvfb and WebKitWebDriver share one process group: signal it all, wait for xvfb-run.
async function stop(driverProcess) {
  process.off('exit', driverProcess.killGroup);
  if (driverProcess.exitCode !== null || driverProcess.signalCode !== null) return;
  const exited = new Promise((resolve) => driverProcess.once('exit', resolve));
  try { process.kill(-driverProcess.pid, 'SIGTERM'); } catch { /* already gone */ }
  await Promise.race([exited, sleep(5000)]);
  try { process.kill(-driverProcess.pid, 'SIGKILL'); } catch { /* gone, as expected */ }
}

/** → the engine-neutral driver of driver.mjs. */
export async function launchWebKit() {
  for (const binary of ['/usr/bin/WebKitWebDriver', '/usr/bin/xvfb-run', MINIBROWSER]) {
    if (!existsSync(binary)) throw new Error(`${binary} not found: run tools/bootstrap.sh (installs webkit2gtk-driver, libwebkit2gtk-4.1-0, xvfb)`);
  }
  const port = await freePort();
  const driverProcess = spawn('xvfb-run', ['-a', '-s', '-screen 0 1280x1024x24', 'WebKitWebDriver', `--port=${port}`],
    { detached: true, stdio: 'ignore' });
  // Should this process end without closing the engine (a crash, process.exit), take them along.
  driverProcess.killGroup = () => {
    try { process.kill(-driverProcess.pid, 'SIGKILL'); } catch { /* already gone */ }
  };
  process.once('exit', driverProcess.killGroup);
  let driver;
  try {
    const url = `http://127.0.0.1:${port}`;
    await untilListening(url, driverProcess);
    driver = await new Builder().usingServer(url).withCapabilities({
      browserName: 'MiniBrowser',
      'webkitgtk:browserOptions': { binary: MINIBROWSER, args: ['--automation'] },
    }).build();
    await driver.manage().setTimeouts({ script: 60000, pageLoad: 30000 });
    await driver.manage().window().setRect({ width: 1280, height: 900 });
    const version = (await driver.getCapabilities()).get('browserVersion');
    const actions = () => driver.actions({ async: true });
    const at = ({ x, y }) => ({ x: Math.round(x), y: Math.round(y), origin: Origin.VIEWPORT });
    return {
      name: 'WebKit',
      version: `WebKitGTK/${version}`,
      consoleErrors: [], // no console endpoint: in-page.js records the page's errors
      goto: (address) => driver.get(address),
      // Async functions too: the page script hands back { value } or { error }.
      evaluate: async (fn, ...args) => {
        const result = await driver.executeAsyncScript(`const done = arguments[arguments.length - 1];
          const args = Array.prototype.slice.call(arguments, 0, -1);
          Promise.resolve().then(() => (${fn}).apply(null, args))
            .then((value) => done({ value }), (e) => done({ error: String(e && e.message || e) }));`, ...args);
        if (result.error !== undefined) throw new Error(result.error);
        return result.value;
      },
      pointerDrag: async (from, to, steps) => {
        let chain = actions().move(at(from)).press();
        for (let s = 1; s <= steps; s++) {
          chain = chain.move({ ...at({ x: from.x + ((to.x - from.x) * s) / steps, y: from.y + ((to.y - from.y) * s) / steps }), duration: 20 });
        }
        await chain.release().perform();
      },
      click: (point) => actions().move(at(point)).click().perform(),
      press: (key) => actions().sendKeys(KEYS[key] ?? key).perform(),
      // With a delay, key by key at that pace, as a person types.
      type: (text, { delay = 0 } = {}) => (delay
        ? [...text].reduce((chain, key) => chain.sendKeys(key).pause(delay), actions()).perform()
        : actions().sendKeys(text).perform()),
      selectAll: () => actions().keyDown(Key.CONTROL).sendKeys('a').keyUp(Key.CONTROL).perform(),
      close: async () => {
        try { await driver.quit(); } finally { await stop(driverProcess); }
      },
    };
  } catch (error) {
    try { await driver?.quit(); } catch { /* the session is gone with the driver */ }
    await stop(driverProcess);
    throw error;
  }
}
