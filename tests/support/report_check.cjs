// Opens a ckb report in headless Chromium (Debian's, through puppeteer-core) the way a person
// would, with JavaScript on and the network off, and prints what it saw as one JSON line:
// console errors, page errors, requests that left the file, the sections present, the nodes of
// each graph, what clicking a module did. Saves a screenshot of the whole page.
//
// usage: node report_check.cjs <tools node_modules> <chromium> <report.html> <screenshot.png>
"use strict";
const path = require("path");
const fs = require("fs");
const os = require("os");

async function main() {
  const [modules, chromium, report, screenshot] = process.argv.slice(2);
  const puppeteer = require(path.join(modules, "puppeteer-core"));
  const profile = fs.mkdtempSync(path.join(os.tmpdir(), "ckb-chromium-"));
  const browser = await puppeteer.launch({
    executablePath: chromium,
    headless: true,
    userDataDir: profile,
    args: [
      "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
      "--disable-background-networking", "--disable-component-update", "--disable-sync",
      "--disable-default-apps", "--disable-extensions",
    ],
  });
  const out = { consoleErrors: [], consoleWarnings: [], pageErrors: [], requests: [] };
  try {
    const page = await browser.newPage();
    await page.setViewport({ width: 1280, height: 900 });
    await page.setOfflineMode(true);
    await page.setRequestInterception(true);
    const url = "file://" + path.resolve(report);
    page.on("request", (req) => {
      if (req.url() !== url && !req.url().startsWith(url + "#") && !req.url().startsWith("data:")) {
        out.requests.push(req.url());
        req.abort();
      } else {
        req.continue();
      }
    });
    page.on("console", (msg) => {
      if (msg.type() === "error") {
        out.consoleErrors.push(msg.text());
      } else if (msg.type() === "warn") {
        out.consoleWarnings.push(msg.text());
      }
    });
    page.on("pageerror", (err) => out.pageErrors.push(String(err)));
    await page.goto(url, { waitUntil: "load" });
    await page.waitForSelector("html[data-ready=true]", { timeout: 10000 });
    Object.assign(out, await page.evaluate(() => {
      const ids = Array.from(document.querySelectorAll("section.report")).map((s) => s.id);
      const graph = (id) => {
        const svg = document.getElementById(id);
        if (!svg) { return null; }
        return {
          modules: Array.from(svg.querySelectorAll("g.node")).map((g) => g.getAttribute("data-module")),
          edges: svg.querySelectorAll("path.edge").length,
          cycleEdges: svg.querySelectorAll("path.edge.cycle").length,
          width: svg.getBoundingClientRect().width,
        };
      };
      const visibleRows = (id) => {
        const t = document.getElementById(id);
        if (!t) { return null; }
        return Array.from(t.tBodies[0].rows).filter((r) => !r.classList.contains("hidden")).length;
      };
      return {
        title: document.title,
        sections: ids,
        notes: Array.from(document.querySelectorAll("p.note")).map((p) => p.textContent),
        architecture: graph("architecture-graph"),
        impact: graph("impact-graph"),
        lineCharts: document.querySelectorAll("svg.chart.line").length,
        scatterPoints: document.querySelectorAll("svg.chart.scatter circle").length,
        cards: Array.from(document.querySelectorAll(".card")).map((c) => ({
          value: c.querySelector(".value").textContent,
          href: c.getAttribute("href"),
          target: !!document.getElementById(c.getAttribute("href").slice(1)),
        })),
        moduleRows: visibleRows("module-table"),
        trendRows: visibleRows("trend-table"),
        hotspotRows: visibleRows("hotspot-table"),
        pagers: document.querySelectorAll(".pager").length,
      };
    }));
    // A person clicks the first module of the architecture graph: its row comes into view.
    if (out.architecture && out.architecture.modules.length > 0) {
      await page.click("#architecture-graph g.node");
      out.afterClick = await page.evaluate(() => ({
        hash: location.hash,
        target: (document.querySelector("tr.target") || {}).id || null,
        selected: document.querySelectorAll("#architecture-graph g.node.selected").length,
      }));
    }
    await page.evaluate(() => window.scrollTo(0, 0));
    await page.screenshot({ path: screenshot, fullPage: true });
  } finally {
    await browser.close();
    fs.rmSync(profile, { recursive: true, force: true });
  }
  process.stdout.write(JSON.stringify(out) + "\n");
}

main().catch((e) => {
  process.stderr.write(String(e && e.stack || e) + "\n");
  process.exit(1);
});
