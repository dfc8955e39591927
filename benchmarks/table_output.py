"""Shared output of the benchmark tables: a rich table on the console, a Markdown file and
its rows as JSON."""

import datetime
import json
import os
import platform

from rich.table import Table


def emit(console, rows, cols, title, device, script, out):
    """Print ``rows`` (dicts) as a rich table and write them as Markdown to ``out``.

    ``cols``: ``(key, heading, format)``; a key missing from a row prints as ``-``.
    """
    table = Table(title=f"{title} — {device}")
    for _, head, _ in cols:
        table.add_column(head, justify="right")
    md = ["| " + " | ".join(h for _, h, _ in cols) + " |", "|" + "---|" * len(cols)]
    for row in rows:
        values = [fmt.format(row[key]) if key in row else "-" for key, _, fmt in cols]
        table.add_row(*values)
        md.append("| " + " | ".join(values) + " |")
    console.print(table)
    header = (f"Device: {device}; host CPU: {platform.processor() or platform.machine()}; "
              f"date {datetime.date.today().isoformat()}; command: "
              f"`PYTHONPATH=. python benchmarks/{script}`\n\n")
    with open(out, "w") as fh:
        fh.write(header + "\n".join(md) + "\n")
    # the rows as JSON beside the Markdown (numbers unformatted)
    with open(os.path.splitext(out)[0] + ".json", "w") as fh:
        json.dump({"title": title, "device": device, "script": script,
                   "date": datetime.date.today().isoformat(), "rows": rows}, fh, indent=1,
                  default=str)
    console.print(f"written to {out} and its .json")
