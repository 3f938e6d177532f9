"""verifier audit: judge every claim of claims files; write the reports."""
from __future__ import annotations

import os

from verifier.core.arith import InputError
from verifier.cli.common import EXIT_OK, print_json


def cmd_audit(args) -> int:
    from verifier.claims import audit as A
    from verifier.claims import format as C
    from verifier.report.writer import audit_files, write_reports
    files = args.files or C.shipped_claims_files()
    loaded, partial, errors = [], [], []         # validate everything before writing
    for f in files:
        try:
            loaded.append(C.load(f))
        except InputError as e:                  # every mistake of every file, one line each
            errors += getattr(e, "messages", None) or [str(e)]
            if getattr(e, "partial", None) is not None:
                partial.append(e.partial)        # its loaded claims still checked below
    names = [cf.name for cf in loaded]
    if len(set(names)) != len(names):
        raise InputError("two claims files have the same name; their reports would collide")
    status = EXIT_OK
    # every claim of every file judged before anything is written: a run that fails
    # (exit 4) or is interrupted leaves the report folder as it was
    judged = []
    for cf in loaded + partial:                  # the load errors' files: their claims that
        try:                                     # loaded, for their evaluation errors too
            results = A.audit(cf, args.max_prec)
            if not errors and cf in loaded:
                judged.append((cf, results, A.figure_data(cf)))
        except InputError as e:                  # every claim that met a limit, all files
            errors += getattr(e, "messages", None) or [str(e)]
    if errors:
        from verifier.core.arith import InputErrors
        raise InputErrors(errors)
    from verifier.core.progress import done
    done()
    out, files = [], {}
    for cf, results, data in judged:           # every file's reports appear together
        mine = audit_files(cf, results, args.out, args.max_prec, data)
        files.update(mine)
        status = max(status, A.exit_status(results))
        out.append((cf, results, tuple(mine)))     # every file written for it
    write_reports(args.out, files)
    if args.json:
        from verifier.report.writer import audit_json
        print_json({"reports": [audit_json(cf, r, args.max_prec) for cf, r, _ in out]})
        return status
    for cf, results, paths in out:
        print(f"{cf.name}: {A.summary_line(results)}")
        for r in results:
            vals = "; ".join(A.value_text(c) for c in r.cases[:1])
            more = f" (+{len(r.cases) - 1} cases)" if len(r.cases) > 1 else ""
            print(f"  {r.verdict:<15} {r.claim.id:<48} printed {r.claim.printed:<8} certified {vals}{more}")
        print(f"  wrote {len(paths)} files: " + ", ".join(paths))
    if out:
        print(f"  wrote {os.path.join(args.out, 'index.html')} (the folder's index)")
    return status
