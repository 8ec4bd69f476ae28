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
CHECKED = {}                       # sha256 of a certificate's bytes -> check's verdict and reason


def check_written(path, data):
    """check's verdict on a certificate certify has just written (once per distinct content)."""
    digest = hashlib.sha256(data).hexdigest()
    if digest not in CHECKED:
        verdict, _, text, _ = checker.verify(path)
        CHECKED[digest] = verdict, text
    return CHECKED[digest]


@pytest.fixture(autouse=True)
def every_certificate_certify_writes_is_checked(monkeypatch):
    """Whatever a test has certify write, check must verify: every rule variant, every start, in
    every test (census workers, forked from the test, inherit this too)."""
    write, failures = output.write_atomic, []

    def write_and_check(path, data):
        write(path, data)
        if data[:4] == ZSTD_MAGIC:
            verdict, text = check_written(path, data)
            if verdict != "verified":
                failures.append(f"{path}: {verdict}: {text}")
                raise AssertionError(f"check does not verify the certificate certify wrote to {path}: {text}")

    monkeypatch.setattr(output, "write_atomic", write_and_check)
    yield
    assert not failures, failures
