"""The web page (web/): the proved checker compiled to JavaScript, checked against vcheck.

web/build.sh is run once per source version (in the temporary folder, keyed by the sources'
hash, on top of vcheck's build from tests/test_vcheck.py). Under Node (web/node-check.js runs
the very web/checker.js the page's worker runs) the page's lines must be vcheck's, byte for
byte, with the same exit codes (vcheck given the file's name, as the page is): on published
certificates (a no-win, a win, a custom rule), a small range, every file of the bad-certificate
corpus, vcheck's hostile version 3 files, damaged zstd frames, VERIFIED lines in the singular
and with commas, signed ints, padded ranges bounded by their bytes, a win of 100,000 moves, a
file past 4 GiB and a column tree of shared prefixes.
Then headless Chromium loads the page itself, from file:// and from `python -m http.server`,
and checks 11982, a win, a range, three bad files and a file past 4 GiB through the page's file
input, comparing each line shown with vcheck's; a screenshot of the page after 11982 is kept in
the test's temporary folder. The browser tests are skipped, saying why, where Chromium, its
driver or selenium is missing.
"""

import hashlib
import json
import os
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest
from support import certgen

from test_vcheck import (build, hostile_single_v3, published_entries,  # noqa: F401 (build:
                         verified_line_files, win_lines)                # vcheck's, a fixture)
import derive_rules   # (vcheck/, on the path as for test_vcheck)

ROOT = Path(__file__).resolve().parent.parent
WEB = ROOT / "web"
CERTS = ROOT / "certificates"
BAD = Path(__file__).resolve().parent / "bad-certificates"
# (The page compiles vcheck's driver, vcheck/ocaml/*.ml, over its own host.)
SOURCES = sorted([*WEB.glob("src/*"), *WEB.glob("coq/*.v"), *WEB.glob("vendor/*"),
                  *(ROOT / "vcheck" / "ocaml").glob("*.ml"),
                  WEB / "build.sh", WEB / "index.html", WEB / "page.js", WEB / "node-check.js"])


def source_digest(vcheck_build):
    h = hashlib.sha256(str(vcheck_build).encode())
    for path in SOURCES:
        h.update(path.name.encode() + b"\0" + path.read_bytes() + b"\0")
    return h.hexdigest()[:16]


@pytest.fixture(scope="session")
def web(build):  # noqa: F811
    """The built page (index.html, page.js, checker.js, published.js) in a folder of its own,
    under a folder that also holds certificates/ (as the repository does)."""
    for tool in ("js_of_ocaml", "node"):
        if shutil.which(tool) is None:
            pytest.skip(f"the web page needs {tool} (.ci/run installs it)")
    top = Path(tempfile.gettempdir()) / f"web-build-{source_digest(build)}"
    if not (top / "web" / "checker.js").exists():
        work = Path(tempfile.mkdtemp(prefix="web-building-"))
        shutil.copytree(WEB, work / "web", ignore=shutil.ignore_patterns("_build", "checker.js",
                                                                        "published.js"))
        (work / "certificates").symlink_to(CERTS)
        (work / "vcheck").symlink_to(ROOT / "vcheck")
        run = subprocess.run(["bash", str(work / "web" / "build.sh"), str(build)],
                             capture_output=True, text=True)
        assert run.returncode == 0, run.stdout + run.stderr
        (work / "build.log").write_text(run.stdout + run.stderr)
        try:
            work.rename(top)
        except OSError:   # built meanwhile by another session
            shutil.rmtree(work, ignore_errors=True)
    return top / "web"


def vcheck_lines(build, path):  # noqa: F811
    """vcheck's exit code and lines on the file, named as the page names it: by its name alone
    (a page is given a file, never its folder), so vcheck runs in the file's folder."""
    run = subprocess.run([str(build / "vcheck"), path.name], capture_output=True, text=True,
                         cwd=path.parent)
    return run.returncode, run.stdout.splitlines()


def page_lines(web, *paths):
    run = subprocess.run(["node", str(web / "node-check.js"), *map(str, paths)],
                         capture_output=True, text=True)
    return run.returncode, run.stdout.splitlines()


def small_range():
    """Deals 11,980..11,985 of the published range 1..32,000 (11982 among them, a no-win), as
    a range certificate of their own with the same entries."""
    blob = (CERTS / "1-32000.msgpack.zst").read_bytes()
    h, entries = certgen.unpack_range(blob)
    chosen = entries[11979:11985]
    if h["version"] == 3:
        parts = [certgen.msgpack.packb([d, c, n], use_bin_type=True)
                 + b"".join(certgen.msgpack.packb(v, use_bin_type=True) for v in values)
                 for d, c, n, values in chosen]
    else:
        parts = [certgen.entry(*e, version=h["version"]) for e in chosen]
    return certgen.range_file(11980, parts, version=h["version"], cells=h["cells"],
                              symmetry=h["symmetry"], **({"closure": h["closure"]}
                                                         if "closure" in h else {}))


# ---- The build ----


def test_build_prints_every_theorem_closed(web):
    """Print Assumptions of each main theorem, numbered deal and custom layout, as vcheck's."""
    log = (web.parent / "build.log").read_text()
    text = (ROOT / "vcheck" / "coq" / "Assumptions.v").read_text()
    theorems = text.count("Print Assumptions")
    # a range has no custom-layout form and the lemmas shipped with the rules are printed once:
    # vcheck/derive_rules.py drops their theorems from the board's list
    board = derive_rules.board_variant(text).count("Print Assumptions")
    assert theorems >= 5
    assert log.count("Closed under the global context") == theorems + board, log
    assert "Axioms" not in log


def test_the_web_extraction_extracts_what_vcheck_extracts():
    """The same functions, from the same compiled proofs; only the numbers' realisers differ."""
    ours = (WEB / "coq" / "ExtractWeb.v").read_text()
    theirs = (ROOT / "vcheck" / "coq" / "Extract.v").read_text()

    def extraction(text):
        return " ".join(text[text.index('Extraction "'):].split())

    def required(text):
        return [line for line in text.splitlines() if line.startswith("From ")]

    assert extraction(ours) == extraction(theirs)
    assert required(ours) == required(theirs)
    for name in ("positive", "N"):
        assert f"Extract Inductive {name} => float" in ours
    assert "Extract Constant Deal.next_state_fast" in ours
    assert "Axiom" not in ours and "Parameter" not in ours


def test_the_pages_trusted_lines_are_one_small_module():
    """What the page trusts beyond vcheck's trusted.ml (which it compiles as it is) is
    web/src/checker.ml: a few lines that pass the file and show what vcheck's driver returns.
    No module of the page's calls a proved function, and the driver is vcheck's own (no copy
    of its modules in web/src)."""
    from test_vcheck import ocaml_code
    checker = (WEB / "src" / "checker.ml").read_text(encoding="utf-8")
    assert len(ocaml_code(checker)) <= 30, len(ocaml_code(checker))
    assert "Certificate.verify" in checker
    proved = re.compile(r"\b(Vcheck_core|Vcheck_board|Numbered|Custom|Trusted)\.")
    for path in WEB.glob("src/*.ml"):
        text = path.read_text(encoding="utf-8")
        assert not proved.search(text), (path.name, proved.search(text))
        assert len(text.splitlines()) <= 120, path.name
    assert sorted(p.name for p in WEB.glob("src/*.ml")) == [
        "checker.ml", "host.ml", "num.ml", "picture.ml"]
    build = (WEB / "build.sh").read_text(encoding="utf-8")
    assert 'shared="proved trusted reading stores moves certificate"' in build
    assert "web/src/checker.ml" in (WEB / "README.md").read_text(encoding="utf-8")


def test_xxh3_and_xxh64_agree_with_python_xxhash(tmp_path):
    """hash-wasm's XXH3-64 (the certificates' hash) and XXH64 (zstd's checksum), fed in two
    pieces as the driver feeds them, against the reference library's."""
    xxhash = pytest.importorskip("xxhash")
    if shutil.which("node") is None:
        pytest.skip("node is not installed")
    sizes = [0, 1, 3, 4, 8, 9, 16, 17, 128, 129, 240, 241, 1000, 65536, 100003]
    script = tmp_path / "xx.js"
    script.write_text(f"""
globalThis.self = globalThis;
const vm = require("vm"), fs = require("fs");
for (const f of ["xxhash3", "xxhash64"])
  vm.runInThisContext(fs.readFileSync({json.dumps(str(WEB / "vendor"))} +
                      "/hash-wasm-4.13.0." + f + ".umd.min.js", "utf8"));
(async () => {{
  const h3 = await hashwasm.createXXHash3(0, 0), h64 = await hashwasm.createXXHash64(0, 0);
  for (const n of {json.dumps(sizes)}) {{
    const d = new Uint8Array(n);
    for (let i = 0; i < n; i++) d[i] = (i * 131 + (i >> 7) * 7 + 3) & 255;
    h3.init(); h3.update(d.subarray(0, n >> 1)); h3.update(d.subarray(n >> 1));
    h64.init(); h64.update(d.subarray(0, n / 3 | 0)); h64.update(d.subarray(n / 3 | 0));
    console.log(n, h3.digest("hex"), h64.digest("hex"));
  }}
}})();
""")
    run = subprocess.run(["node", str(script)], capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    want = []
    for n in sizes:
        d = bytes((i * 131 + (i >> 7) * 7 + 3) & 255 for i in range(n))
        want.append(f"{n} {xxhash.xxh3_64_hexdigest(d)} {xxhash.xxh64_hexdigest(d)}")
    assert run.stdout.splitlines() == want


# ---- The page's checker against vcheck, under Node ----


def same_as_vcheck(build, web, paths):  # noqa: F811
    for path in paths:
        want = vcheck_lines(build, path)
        got = page_lines(web, path)
        assert got == want, (path.name, got, want)


# A published no-win of more positions than this takes the page (in Node) seconds to minutes:
# the files above it, and the range 1..32,000 (checked in part by the small range below), are
# left to vcheck's own tests and the benchmark, so that the whole comparison stays near three
# minutes.
MOST_POSITIONS = 80_000


def published_within_reach():
    """The published certificates the comparison runs, and those it leaves out (by name)."""
    run, left = [], []
    for path in sorted(CERTS.glob("*.msgpack.zst")):
        reader = certgen.zstandard.ZstdDecompressor().stream_reader(path.read_bytes(),
                                                                    read_across_frames=True)
        unpacker = certgen.msgpack.Unpacker(raw=False)
        unpacker.feed(reader.read(65536))
        h = next(unpacker)
        if h["claim"] == "range" or (h["claim"] == "no-win" and h["count"] > MOST_POSITIONS):
            left.append(path.name)
        else:
            run.append(path)
    return run, left


def lines_by_file(stdout):
    """Several files' lines, as vcheck and the page print them: the file's name, then its line,
    then (a verified file) its sha256; vcheck's closing count left out."""
    got, name = {}, None
    for line in stdout.splitlines():
        if line.startswith("  sha256 ") and name is not None:
            got[name].append(line)
        elif ": " in line and line.split(": ", 1)[1].split(": ", 1)[0] in (
                "VERIFIED", "REJECTED", "UNREADABLE"):
            name = line.split(": ", 1)[0]
            got[name] = [line]
    return got


def test_every_published_and_bad_certificate_as_vcheck_gives_it(build, web):  # noqa: F811
    """The built page under Node over every published certificate within reach (those left out
    are named in the output) and the whole bad-certificate corpus: each file's line, sha256
    line and exit class as vcheck's, each run once over all the files of a folder, named as
    the page names them."""
    published, left = published_within_reach()
    print(f"left out (more than {MOST_POSITIONS:,} positions, or a range): {', '.join(left)}")
    assert len(published) >= 90 and "11982.msgpack.zst" in [p.name for p in published]
    bad = sorted(BAD.glob("*.msgpack.zst"))
    assert len(bad) >= 54
    for folder, paths in ((CERTS, published), (BAD, bad)):
        names = [p.name for p in paths]
        native = subprocess.run([str(build / "vcheck"), *names], capture_output=True, text=True,
                                cwd=folder)
        page = subprocess.run(["node", str(web / "node-check.js"), *names],
                              capture_output=True, text=True, cwd=folder)
        want, got = lines_by_file(native.stdout), lines_by_file(page.stdout)
        assert sorted(want) == sorted(names), native.stdout[-2000:]
        for name in names:
            assert got.get(name) == want[name], (name, got.get(name), want[name])
        assert page.returncode == native.returncode


def test_published_certificates_as_vcheck_prints_them(build, web):  # noqa: F811
    paths = [CERTS / n for n in ("11982.msgpack.zst", "11982-cells5.msgpack.zst",
                                 "11982-cells3.msgpack.zst", "11982-fm.msgpack.zst",
                                 "1155215.msgpack.zst")]
    same_as_vcheck(build, web, paths)
    code, lines = page_lines(web, paths[0])
    assert code == 0 and lines[0].startswith("VERIFIED: Microsoft FreeCell deal 11982 (4 free")


def test_a_range_as_vcheck_prints_it(build, web, tmp_path):  # noqa: F811
    path = tmp_path / "11980-11985.msgpack.zst"
    path.write_bytes(small_range())
    same_as_vcheck(build, web, [path])
    code, lines = page_lines(web, path)
    assert code == 0 and "exactly 1 cannot be won: 11982;" in lines[0], lines


def test_every_bad_certificate_as_vcheck_refuses_it(build, web):  # noqa: F811
    """All of the corpus, the files whose class (UNREADABLE or REJECTED) the checkers once gave
    differently among them (certgen.verdict_corpus)."""
    paths = sorted(BAD.glob("*.msgpack.zst"))
    assert len(paths) >= 54
    same_as_vcheck(build, web, paths)
    code, lines = page_lines(web, BAD / "empty.msgpack.zst")
    assert (code, lines) == (2, ["UNREADABLE: empty.msgpack.zst is empty"])


def test_verified_lines_singular_with_commas_signed_ints(build, web, tmp_path):  # noqa: F811
    """check's VERIFIED lines, as vcheck now writes them: a win of one move, a no-win of one
    position, 1,500 moves with a comma, a range of two; msgpack's signed ints read as ints (a
    range whose deals and counts are int 16, 32 and 64, a header whose count is an int 32)."""
    files, padded = verified_line_files()

    def signed(n, code):   # n in msgpack's int form `code` (0xd0..0xd3)
        size = {0xd0: 1, 0xd1: 2, 0xd2: 4, 0xd3: 8}[code]
        return bytes([code]) + n.to_bytes(size, "big", signed=True)

    lines = {d: v[0] for d, c, n, v in certgen.unpack_range(
        (CERTS / "1-32000.msgpack.zst").read_bytes())[1][:4]}
    for code in (0xd1, 0xd2, 0xd3):
        es = [b"\x93" + signed(d, code) + certgen.msgpack.packb("win") + signed(len(line), code)
              + certgen.msgpack.packb(line) for d, line in lines.items()]
        files[f"signed-{code:x}"] = certgen.range_file(1, es, version=3)
    blob = certgen.win_file(certgen.WIN1, 1, certgen.win_path(certgen.WIN1, 1), version=3)
    data = certgen.zstandard.ZstdDecompressor().stream_reader(
        blob, read_across_frames=True).read()
    h = certgen.msgpack.packb(certgen.unpack_file(blob)[0])
    count = certgen.unpack_file(blob)[0]["count"]
    changed = h.replace(b"\xa5count" + bytes([count]), b"\xa5count" + signed(count, 0xd2))
    assert changed != h
    files["header-int32"] = certgen.zstandard.ZstdCompressor().compress(changed + data[len(h):])
    paths = []
    for name, blob in files.items():
        paths.append(tmp_path / f"{name}.msgpack.zst")
        paths[-1].write_bytes(blob)
    same_as_vcheck(build, web, paths)
    said = {p.stem.removesuffix(".msgpack"): page_lines(web, p) for p in paths}
    assert all(code == 0 for code, _ in said.values()), said
    assert " 1 single-card move replays to a won position" in said["one-move"][1][0]
    assert ": 1 position closed under every legal move, none won" in said["one-position"][1][0]
    assert f": {len(padded):,} single-card moves replay" in said["long"][1][0]


def test_a_padded_range_is_bounded_by_its_bytes_mid_file(build, web, tmp_path):  # noqa: F811
    """True wins of deals 1..300, each padded to 1,000 moves (300,000 moves in about 20 KB):
    vcheck's default bounds (format section 5) refuse it mid-file by the bytes read so far,
    counted a KiB at a time; the page names the same entry and the same bytes."""
    path = tmp_path / "padded-300.msgpack.zst"
    path.write_bytes(certgen.padded_range(win_lines(300), 1000))
    same_as_vcheck(build, web, [path])
    code, lines = page_lines(web, path)
    assert code == 2 and " moves in its first " in lines[0] and "entry 1 " not in lines[0], lines


def test_the_reviews_padded_range_is_refused_at_once(build, web, tmp_path):  # noqa: F811
    """Deals 1..1,000, each true line padded to 100,000 moves (114 KB): refused at its second
    entry by its first KiB, as vcheck refuses it."""
    path = tmp_path / "padded-1000.msgpack.zst"
    path.write_bytes(certgen.padded_range(win_lines(1000), 100_000))
    same_as_vcheck(build, web, [path])
    code, lines = page_lines(web, path)
    assert code == 2 and lines[0].startswith("UNREADABLE: entry 2 (deal 2): the range holds more "
                                             "than 104,096 moves in its first 1,024 bytes"), lines


def test_a_win_of_the_most_moves_as_vcheck_verifies_it(build, web, tmp_path):  # noqa: F811
    """Deal 1's true line padded to 100,000 moves (--max-moves): the page holds it, counts it
    and prints vcheck's line (no step of the driver or of the proved checker recurses as deep
    as the line is long, which JavaScript's stack could not hold)."""
    start = certgen.deal_start(1)
    padded = certgen.padded_indices(1, 4, win_lines(1)[1], 100_000)
    path = tmp_path / "long-1.msgpack.zst"
    path.write_bytes(certgen.win_file(start, 4, certgen.index_moves(start, 4, False, padded),
                                      deal=1, version=3))
    same_as_vcheck(build, web, [path])
    code, lines = page_lines(web, path)
    assert code == 0 and f": {len(padded):,} single-card moves replay" in lines[0], lines


def sparse_past_4_gib(tmp_path):
    """A certificate's bytes, then zeros to 64 GiB (a sparse file: a few KB on disk)."""
    path = tmp_path / "sparse.msgpack.zst"
    with open(path, "wb") as f:
        f.write((CERTS / "11982-cells5.msgpack.zst").read_bytes())
        f.truncate(64 << 30)
    return path


def test_a_file_past_4_gib_is_refused_by_its_size(build, web, tmp_path):  # noqa: F811
    """As vcheck refuses it (vcheck/README.md, "Where the two checkers still differ"): by its
    size, in vcheck's words, none of it read."""
    path = sparse_past_4_gib(tmp_path)
    same_as_vcheck(build, web, [path])
    assert page_lines(web, path) == (2, ["UNREADABLE: sparse.msgpack.zst holds more than 4 GiB"])


def test_a_column_tree_of_shared_prefixes(build, web, tmp_path):  # noqa: F811
    """A false no-win of deal 1 whose 40,320 columns are every order of 8 cards under the same
    44 (1.8 million distinct prefixes): vcheck's line, the start named, from the page too."""
    path = tmp_path / "permuted-8.msgpack.zst"
    path.write_bytes(certgen.permuted_columns(1, 8))
    same_as_vcheck(build, web, [path])
    code, lines = page_lines(web, path)
    assert code == 1 and "the starting position (" in lines[0], lines


def test_hostile_version3_files_as_vcheck_refuses_them(build, web, tmp_path):  # noqa: F811
    paths = []
    for name, (blob, _) in hostile_single_v3().items():
        path = tmp_path / f"{name}.msgpack.zst"
        path.write_bytes(blob)
        paths.append(path)
    same_as_vcheck(build, web, paths)


def test_zstd_damage_is_refused_in_one_line(build, web, tmp_path):  # noqa: F811
    """Frames cut, joined, emptied, skipped or given a checksum: the same line as vcheck's."""
    good = (CERTS / "11982-cells5.msgpack.zst").read_bytes()
    data = certgen.zstandard.ZstdDecompressor().decompress(good)
    z = certgen.zstandard
    cases = {
        "empty": b"",
        "three-bytes": good[:3],
        "header-only": good[:6],
        "not-magic": b"\x28\xb5\x2f\xfc" + good[4:],
        "skippable-first": b"\x50\x2a\x4d\x18\x04\x00\x00\x00abcd" + good,
        "empty-frame-after": good + z.ZstdCompressor().compress(b""),
        "two-frames": (z.ZstdCompressor(write_content_size=False).compress(data[:40])
                       + z.ZstdCompressor().compress(data[40:])),
        "checksummed": z.ZstdCompressor(write_checksum=True).compress(data),
        "bad-checksum": (lambda b: b[:-1] + bytes([b[-1] ^ 1]))(
            z.ZstdCompressor(write_checksum=True).compress(data)),
        "window-too-large": b"\x28\xb5\x2f\xfd\x00\x90" + good[6:],
        "reserved-bit": b"\x28\xb5\x2f\xfd" + bytes([good[4] | 8]) + good[5:],
    }
    paths = []
    for name, blob in cases.items():
        path = tmp_path / f"{name}.msgpack.zst"
        path.write_bytes(blob)
        paths.append(path)
    same_as_vcheck(build, web, paths)


# ---- The page itself, in headless Chromium ----


def chromium():
    for name in ("chromium", "chromium-browser", "google-chrome"):
        if shutil.which(name):
            return shutil.which(name)
    return None


@pytest.fixture(scope="module")
def browser():
    """Headless Chromium driven by selenium, or a skip that says what is missing."""
    webdriver = pytest.importorskip("selenium.webdriver",
                                    reason="selenium is not installed (pip install selenium)")
    binary, driver = chromium(), shutil.which("chromedriver")
    if binary is None or driver is None:
        pytest.skip("Chromium or its driver is not installed "
                    "(apt-get install chromium chromium-driver)")
    from selenium.webdriver.chrome.service import Service
    options = webdriver.ChromeOptions()
    options.binary_location = binary
    for flag in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                 "--window-size=1000,1100"):
        options.add_argument(flag)
    b = webdriver.Chrome(service=Service(driver), options=options)
    b.set_script_timeout(120)
    yield b
    b.quit()


def page_check(browser, path, timeout=120):
    """Gives the page a file through its file input; the lines it shows once done."""
    from selenium.webdriver.common.by import By
    browser.execute_script("document.body.setAttribute('data-done', 'waiting')")
    browser.find_element(By.ID, "file").send_keys(str(path))
    deadline = time.time() + timeout
    while time.time() < deadline:
        done = browser.find_element(By.TAG_NAME, "body").get_attribute("data-done")
        if done not in ("waiting", ""):
            break
        time.sleep(0.1)
    else:
        raise AssertionError(f"the page did not finish {path.name} in {timeout} s")
    assert done in ("verified", "rejected", "unreadable"), (done, browser.find_element(
        By.ID, "verdict").text)
    lines = browser.execute_script("return document.getElementById('verdict').textContent")
    browser.execute_script("document.getElementById('file').value = ''")
    return lines.splitlines()


def test_the_page_in_chromium_from_a_file(build, web, browser, tmp_path):  # noqa: F811
    """11982, a win, a range, three bad files and a file past 4 GiB (refused by its size, unread),
    each line as vcheck prints it; the deal drawn with its frozen cards; a screenshot kept."""
    from selenium.webdriver.common.by import By
    browser.get((web / "index.html").as_uri())
    rng = tmp_path / "11980-11985.msgpack.zst"
    rng.write_bytes(small_range())
    files = [CERTS / "11982.msgpack.zst", CERTS / "11982-cells5.msgpack.zst", rng,
             BAD / "bomb.msgpack.zst", BAD / "win-illegal-move.msgpack.zst",
             BAD / "not-zstd.msgpack.zst", sparse_past_4_gib(tmp_path)]
    for path in files:
        lines = page_check(browser, path)
        assert lines == vcheck_lines(build, path)[1], path.name
        if path.name == "11982.msgpack.zst":
            cards = browser.find_elements(By.CSS_SELECTOR, "#deal g.card")
            outlined = browser.find_elements(By.CSS_SELECTOR, "#deal g.card.outlined")
            assert len(cards) == 52 and outlined, len(cards)
            facts = browser.find_element(By.ID, "facts").text
            assert f"{len(outlined)} cards never move" in facts, facts
            # As certificates/README.md's index gives them (certify explain's facts).
            row = next(line for line in (CERTS / "README.md").read_text().splitlines()
                       if line.startswith("| 11982 | 4 | no | no-win |"))
            frozen = row.split(" | ")[7]
            assert frozen.startswith(f"{len(outlined)}: ")
            assert frozen.split(": ", 1)[1].replace(" · ", ", ") + "." in facts, (frozen, facts)
            shot = tmp_path / "page-11982.png"
            browser.save_screenshot(str(shot))
            assert shot.stat().st_size > 10000
            print(f"screenshot: {shot}")


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_the_page_over_http_checks_a_published_file_and_cancels(build, web, browser):  # noqa: F811
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select
    port = free_port()
    server = subprocess.Popen([sys.executable, "-m", "http.server", str(port), "--bind",
                               "127.0.0.1", "--directory", str(web.parent)],
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.time() + 10
        while True:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                assert time.time() < deadline, "http.server did not start"
                time.sleep(0.1)
        browser.get(f"http://127.0.0.1:{port}/web/index.html")
        Select(browser.find_element(By.ID, "published")).select_by_value(
            "11982-cells3.msgpack.zst")
        browser.execute_script("document.body.setAttribute('data-done', 'waiting')")
        browser.find_element(By.ID, "check-published").click()
        deadline = time.time() + 60
        while browser.find_element(By.TAG_NAME, "body").get_attribute("data-done") in (
                "waiting", ""):
            assert time.time() < deadline
            time.sleep(0.1)
        lines = browser.execute_script(
            "return document.getElementById('verdict').textContent").splitlines()
        assert lines == vcheck_lines(build, CERTS / "11982-cells3.msgpack.zst")[1]
        # A long check, cancelled: the page says so and shows no verdict.
        Select(browser.find_element(By.ID, "published")).select_by_value(
            "7484159.msgpack.zst")
        browser.execute_script("document.body.setAttribute('data-done', 'waiting')")
        browser.find_element(By.ID, "check-published").click()
        deadline = time.time() + 20
        while browser.find_element(By.ID, "cancel").get_attribute("disabled"):
            assert time.time() < deadline, "the check did not start"
            time.sleep(0.05)
        time.sleep(0.5)
        browser.find_element(By.ID, "cancel").click()
        assert browser.find_element(By.TAG_NAME, "body").get_attribute("data-done") == "cancelled"
        assert browser.find_element(By.ID, "verdict").text == ""
        assert browser.find_element(By.ID, "status").text == "cancelled"
    finally:
        server.terminate()
        server.wait(timeout=10)
