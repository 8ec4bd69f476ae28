import contextlib
import hashlib
import os

import pytest
from hypothesis import settings

from certify import output
from check import checker

# Bounded property tests in the default run; `-m slow` runs use the "long" profile via HYPOTHESIS_PROFILE.
settings.register_profile("default", max_examples=60, deadline=None)
settings.register_profile("long", max_examples=2000, deadline=None)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "default"))

ZSTD_MAGIC = b"\x28\xb5\x2f\xfd"   # certify writes zstd frames only as certificates

# The full tier's modules, beyond the quick tier (README's test command: -m "not slow and not
# full"): the proof assistants, vcheck and the web page (which compile Coq), the engine under
# AddressSanitizer, the search on disk, the census with its workers and Dask, the solver's
# flares, FreeCell Pro's far deals. .ci/run runs both tiers, one after the other; -m slow runs the long ones.
FULL = {"test_export_coq", "test_export_lean", "test_vcheck", "test_vcheck_bench", "test_web",
        "test_engine_asan", "test_external", "test_census", "test_solver_flares",
        "test_range_freecell_pro"}


def pytest_collection_modifyitems(items):
    for item in items:
        if item.module.__name__.rsplit(".", 1)[-1] in FULL:
            item.add_marker(pytest.mark.full)
CHECKED = {}                       # sha256 of a certificate's bytes -> check's verdict and reason


def check_written(path, data):
    """check's verdict on a certificate certify has just written (once per distinct content)."""
    digest = hashlib.sha256(data).hexdigest()
    if digest not in CHECKED:
        verdict, _, text, _ = checker.verify(path)
        CHECKED[digest] = verdict, text
    return CHECKED[digest]


@pytest.fixture(autouse=True)
def every_certificate_certify_writes_is_checked(request, monkeypatch):
    """Whatever a test has certify write, check must verify: every rule variant, every start, single
    and range certificates, in every test (census workers, forked from the test, inherit this too).
    Every file certify writes goes through output.atomic_file (write_atomic included); a census's
    chunk files are zstd frames too, but working state, not certificates."""
    if request.node.get_closest_marker("false_certificates"):
        yield
        return
    atomic_file, failures = output.atomic_file, []

    @contextlib.contextmanager
    def write_and_check(path, *args, **kwargs):
        with atomic_file(path, *args, **kwargs) as f:
            yield f
        if path == "-" or str(path).endswith(".chunk.zst") or not os.path.isfile(path):
            return
        with open(path, "rb") as f:
            data = f.read()
        if data[:4] == ZSTD_MAGIC:
            verdict, text = check_written(path, data)
            if verdict != "verified":
                failures.append(f"{path}: {verdict}: {text}")
                raise AssertionError(f"check does not verify the certificate certify wrote to {path}: {text}")

    monkeypatch.setattr(output, "atomic_file", write_and_check)
    yield
    assert not failures, failures
