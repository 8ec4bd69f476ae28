"""From a start position to a certificate: search, then write what the search found.

This is the one place that decides what a run claims. WIN and NO_WIN come only with their
evidence; anything else is UNKNOWN and writes nothing.
"""

import hashlib
import os
import time
from dataclasses import dataclass

from . import certificate, output
from .rules import Rules, encode, is_won, moves
from .search import NO_WIN, UNKNOWN, WIN, decode_key, search


@dataclass
class Result:
    verdict: str
    positions: int
    seconds: float
    most_home: int
    path: str = None  # the certificate written, if any
    sha256: str = None
    size: int = None
    moves: list = None  # WIN: the single-card moves
    reason: str = ""  # UNKNOWN: why
    body: bytes = None  # the certificate's body (what a range certificate's entry carries)

    def as_json(self, deal):
        return {
            "deal": deal,
            "verdict": self.verdict,
            "positions": self.positions,
            "path": self.path,
            "sha256": self.sha256,
            "bytes": self.size,
            "seconds": round(self.seconds, 3),
            "most_home": self.most_home,
            "moves": len(self.moves) if self.moves is not None else None,
            "reason": self.reason or None,
        }


def moves_along(start, keys, ncells, columns, rules):
    """The real single-card moves that follow a path of search keys from `start`.

    Under symmetry the keys do not say which column is which, so at each step we pick the first
    legal move (by rules.moves, the readable rules) whose result is the next key's position.
    """
    line = []
    position = start
    for k in keys[1:]:
        target = encode(decode_key(k, ncells, columns), ncells, rules.fixed_columns)
        for card, dest, after in moves(position, ncells, rules.foundation_moves):
            if encode(after, ncells, rules.fixed_columns) == target:
                line.append((card, dest))
                position = after
                break
        else:
            raise AssertionError("search path does not follow the rules")  # a bug, not input
    if not is_won(position):
        raise AssertionError("search path does not end won")
    return line


def win_certificate(moves_line, deal, board, rules):
    """(file bytes, body) of the win certificate for a line of single-card moves."""
    body = certificate.win_body(moves_line)
    head = certificate.header("win", deal, board, rules, len(moves_line), body)
    return certificate.encode_file(head, body), body


def prove(start, rules, deal=None, out=None, max_positions=None, time_limit=None,
          progress=None, solver=None):
    """Search from `start`; write the certificate to `out` unless the outcome is UNKNOWN.

    `solver`, if given, is tried first: a function start -> list of single-card moves or None.
    Its line is replayed by the readable rules before it is believed.
    `progress` (certify/progress.py) hears each phase and the search's figures.
    """
    board = None if deal is not None else certificate.board_bytes(start, rules.ncells)
    t0 = time.monotonic()
    if solver is not None:
        _phase(progress, "solving")
        line = solver(start)
        if line is not None and replays_to_win(start, line, rules):
            data, body = win_certificate(line, deal, board, rules)
            # positions: the replayed line's, the only ones this result vouches for
            return _written(Result(WIN, len(line) + 1, time.monotonic() - t0, 52, moves=line,
                                   body=body), data, out)
    _phase(progress, "searching")
    outcome = search(start, rules, max_positions, time_limit, progress)
    # seconds: the whole run, the solver's attempt included
    result = Result(outcome.verdict, outcome.positions, time.monotonic() - t0, outcome.most_home,
                    reason=outcome.reason)
    if outcome.verdict == UNKNOWN:
        return result
    _phase(progress, "writing")
    if outcome.verdict == WIN:
        result.moves = moves_along(start, outcome.path, rules.ncells, outcome.columns, rules)
        data, result.body = win_certificate(result.moves, deal, board, rules)
    else:
        assert outcome.verdict == NO_WIN
        result.body = certificate.no_win_body(outcome.keys, outcome.columns, rules.ncells,
                                              rules.fixed_columns)
        head = certificate.header("no-win", deal, board, rules, outcome.positions, result.body)
        data = certificate.encode_file(head, result.body)
    return _written(result, data, out)


def _phase(progress, name):
    if progress is not None:
        progress.phase(name)


def replays_to_win(start, line, rules):
    position = start
    for card, dest in line:
        for c, d, after in moves(position, rules.ncells, rules.foundation_moves):
            if (c, d) == (card, dest):
                position = after
                break
        else:
            return False
    return is_won(position)


def _written(result, data, out):
    result.sha256 = hashlib.sha256(data).hexdigest()
    result.size = len(data)
    if out is not None:
        output.write_atomic(out, data)
        result.path = os.fspath(out)
    return result


__all__ = ["Result", "Rules", "prove", "WIN", "NO_WIN", "UNKNOWN"]
