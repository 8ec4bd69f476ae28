"""Running a census from tests (test_census.py, test_range.py): the command in process, and its
results table read back."""
import json

from certify.commands import cli


def run(capsys, *argv):
    """(exit code, stdout, stderr) of `certify ARGV...`."""
    code = cli.main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def table(folder):
    with open(folder / "results.jsonl", encoding="utf-8") as f:
        return [json.loads(line) for line in f]


def timeless(rows):
    """Rows without `seconds`, the one field that differs from run to run."""
    return [{k: v for k, v in r.items() if k != "seconds"} for r in rows]
