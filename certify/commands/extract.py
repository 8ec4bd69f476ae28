"""`certify extract RANGEFILE DEAL [-o PATH]`: one deal's own certificate, from a range file.

The entry of a range certificate holds everything its deal's single certificate holds, so the
file written is byte for byte the one `certify DEAL` writes under the same rules. The whole
range file is read (it streams), so that its digest is checked before anything is written.
"""

import hashlib
import json

from ..format import ranges, spec
from .. import output
from .inputs import keep_other_claims, regular_file
from ..format.names import certificate_name
from .options import EXIT_OK, Parser, Usage, deal_number, with_old_verdict


def extract_parser():
    return Parser(prog="certify extract",
                  description="Write the certificate of one deal of a range certificate: the "
                              "same bytes as `certify DEAL` with the range's rules.",
                  epilog="Exit codes: 0 written, 2 bad input (a damaged range file, a deal "
                         "outside its range, a path that cannot be written).")


def run_extract(argv):
    p = extract_parser()
    p.add_argument("range_file", metavar="RANGEFILE", help="a range certificate (certify A-B)")
    p.add_argument("deal", metavar="DEAL", help="a deal number in its range")
    p.add_argument("-o", "--output", metavar="PATH",
                   help="where to write it (default ./DEAL.msgpack.zst, rules other than the "
                        "defaults in the name, e.g. 11982-cells3.msgpack.zst)")
    p.add_argument("--json", action="store_true", help="print one JSON object instead of text")
    args = p.parse_args(argv)
    wanted = deal_number(args.deal)
    regular_file(args.range_file)
    try:
        head, entries = ranges.read(args.range_file)
        if not head["first"] <= wanted <= head["last"]:
            raise Usage(f"deal {wanted} is not in {args.range_file} "
                        f"(deals {head['first']}..{head['last']})")
        rules = ranges.rules_of(head)
        out = output.target(args.output, certificate_name(wanted, rules))
        keep_other_claims(out, args.output, wanted, None, rules)
        found = None
        for deal, claim, count, body in entries:  # to the end: the digest covers every entry
            if deal == wanted:
                found = claim, count, body
    except ranges.RangeError as e:
        raise Usage(spec.said(args.range_file, e)) from None
    claim, count, body = found
    data = ranges.single_certificate(head, wanted, claim, count, body)
    output.write_atomic(out, data)
    digest = hashlib.sha256(data).hexdigest()
    if args.json:
        print(json.dumps(with_old_verdict({"deal": wanted, "claim": claim, "count": count,
                                           "path": out, "sha256": digest,
                                           "bytes": len(data)})))
    else:
        what = f"won in {count} single-card moves" if claim == "win" else \
            f"cannot be won: {count:,} positions"
        print(f"deal {wanted}: {what}\n  certificate {out} ({len(data):,} bytes)\n"
              f"  sha256 {digest}")
    return EXIT_OK

