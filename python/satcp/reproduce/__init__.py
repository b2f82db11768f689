"""Reproductions of published results (``satcp reproduce ...``).

Shared by the reproductions :mod:`.adalr` and :mod:`.peach`:
:mod:`.report` (running the parts, writing the report all or nothing),
:mod:`.tables` (Markdown tables, CSV files, percentage differences) and
:mod:`.plotstyle` (the figures' style).
"""
