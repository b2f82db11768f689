"""Reproductions of published results (``satcp reproduce ...``)."""
