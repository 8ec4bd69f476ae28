"""tools/mutants.py's selection: which mutants a run takes (the runs themselves take minutes and
are not part of the test run)."""
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def listed(*options):
    done = subprocess.run([sys.executable, str(ROOT / 'tools' / 'mutants.py'), '--list', *options],
                          capture_output=True, text=True, check=True)
    return done.stdout.splitlines()


def test_skip_leaves_out_the_first_mutants_chosen_and_no_mutant_is_stale():
    every = listed('--only', 'check')
    assert len(every) > 100 and all(line.startswith('live ') for line in every)
    assert listed('--only', 'check', '--skip', '40') == every[40:]
    assert listed('--only', 'check', '--skip', str(len(every))) == []
    assert listed('--only', 'check', '-k', 'range:', '--skip', '1') == \
        [line for line in every if 'range:' in line][1:]
