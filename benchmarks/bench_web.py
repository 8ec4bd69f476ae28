"""Benchmark the web page's checker (web/: the proved checker compiled to JavaScript) beside
vcheck, the same checker run natively.

    python3 benchmarks/bench_web.py [--runs N] [--vcheck PATH] [--no-browser] [--json] [FILE...]
        checks each FILE (default certificates/11982.msgpack.zst and
        certificates/7484159.msgpack.zst) N times (1) with vcheck (-q, one process), with the
        page's checker under Node (web/node-check.js, which runs web/checker.js as the page's
        worker does) and in the page itself in headless Chromium (selenium; the file given to
        the page's file input, timed until the verdict is shown): the median wall seconds of
        each, and the page's size (web/checker.js, and everything the page loads).  Needs
        web/build.sh and vcheck/build.sh run first.  --no-browser leaves Chromium out.

The targets (the page's design): 11982 verified in the page within 5 s, 7484159 within 60 s.
The machine may be shared: the wall times depend on its load, printed with each figure.
"""
import argparse
import os
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

from report import Report, add_json_option, figure

ROOT = Path(__file__).resolve().parent.parent
WEB = ROOT / "web"
DEFAULT_FILES = [ROOT / "certificates" / "11982.msgpack.zst",
                 ROOT / "certificates" / "7484159.msgpack.zst"]


def wall(command, cwd=None):
    began = time.perf_counter()
    run = subprocess.run(command, capture_output=True, text=True, cwd=cwd)
    seconds = time.perf_counter() - began
    return seconds, run.returncode, run.stdout.splitlines()


def browser():
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service
    options = webdriver.ChromeOptions()
    options.binary_location = shutil.which("chromium")
    for flag in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage"):
        options.add_argument(flag)
    return webdriver.Chrome(service=Service(shutil.which("chromedriver")), options=options)


def in_page(b, path):
    """Seconds from the file given to the page to its verdict shown, and the lines shown."""
    from selenium.webdriver.common.by import By
    b.get((WEB / "index.html").as_uri())
    b.execute_script("document.body.setAttribute('data-done', 'waiting')")
    began = time.perf_counter()
    b.find_element(By.ID, "file").send_keys(str(path))
    while b.find_element(By.TAG_NAME, "body").get_attribute("data-done") in ("waiting", ""):
        time.sleep(0.02)
    seconds = time.perf_counter() - began
    lines = b.execute_script("return document.getElementById('verdict').textContent")
    return seconds, lines.splitlines()


def main():
    parser = add_json_option(argparse.ArgumentParser(description=__doc__.split("\n")[0]))
    parser.add_argument("--runs", type=int, default=1)
    parser.add_argument("--vcheck", default=str(ROOT / "vcheck" / "_build" / "vcheck"))
    parser.add_argument("--no-browser", action="store_true")
    parser.add_argument("files", nargs="*", type=Path, default=DEFAULT_FILES)
    args = parser.parse_args()
    report = Report("bench_web", args.json)
    if not (WEB / "checker.js").exists():
        sys.exit("bench_web: no web/checker.js: run web/build.sh first")
    size = (WEB / "checker.js").stat().st_size
    total = sum((WEB / n).stat().st_size for n in ("checker.js", "index.html", "page.js",
                                                   "published.js"))
    report.line(f"web/checker.js: {size:,} bytes; the page with it: {total:,} bytes",
                figure("checker.js size", size, "bytes", "wc -c web/checker.js"),
                figure("page size", total, "bytes", "web/*.html *.js"))
    b = None if args.no_browser else browser()
    try:
        for path in args.files:
            load = os.getloadavg()[0]
            native = [wall([args.vcheck, "-q", str(path)]) for _ in range(args.runs)]
            node = [wall(["node", str(WEB / "node-check.js"), str(path)])
                    for _ in range(args.runs)]
            # (vcheck's lines on the file named as the page names it: by its name alone)
            want = wall([str(Path(args.vcheck).resolve()), path.name], cwd=path.parent)[2]
            assert all(r[2] == want for r in node), (node[0][2], want)
            v = statistics.median(r[0] for r in native)
            n = statistics.median(r[0] for r in node)
            report.line(f"{path.name}: vcheck {v:.2f} s, the page's checker under Node {n:.2f} s "
                        f"({n / v:.1f} x) [load {load:.1f}]",
                        figure("vcheck wall", v, "s", f"vcheck -q {path.name}", args.runs,
                               load=load),
                        figure("node wall", n, "s", f"node web/node-check.js {path.name}",
                               args.runs, versus=f"vcheck -q {path.name}", versus_value=v,
                               ratio=n / v, load=load))
            if b is not None:
                runs = [in_page(b, path) for _ in range(args.runs)]
                assert all(r[1] == want for r in runs), (runs[0][1], want)
                p = statistics.median(r[0] for r in runs)
                report.line(f"{path.name}: in the page (headless Chromium) {p:.2f} s "
                            f"({p / v:.1f} x vcheck) [load {os.getloadavg()[0]:.1f}]",
                            figure("page wall", p, "s", f"index.html, file input {path.name}",
                                   args.runs, versus=f"vcheck -q {path.name}", versus_value=v,
                                   ratio=p / v, load=os.getloadavg()[0]))
    finally:
        if b is not None:
            b.quit()


if __name__ == "__main__":
    main()
