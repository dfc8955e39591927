"""The audit report: one self-contained HTML page an auditor can hand over.

:func:`audit_report` renders the audit of one or more score columns (the findings, each
a verdict by a stated rule, first; every metric with its interval, pictures with
captions, the decisions at a cut-off, a model file's effect and certificate, provenance)
from a Jinja2 template;
:func:`write_audit_report` writes it atomically. Jinja2 and matplotlib are imported when
a report is made (``pip install "gpu-xorder[report]"``).
"""

from ._audit import audit_report, write_audit_report

__all__ = ["audit_report", "write_audit_report"]
