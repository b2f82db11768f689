"""The thesis's networks as scenario dicts, what the experiments vary, and
running a batch of scenarios.

- :func:`thesis_scenario`: the thesis network (Fig. 7.2, Tables 7.2-7.4),
  with keyword arguments for what the experiments vary (delays, rates,
  gateway buffer, bit error rate, file size, variant, delayed ACK):
  :func:`satcp.topology.thesis_network`;
- :func:`fairness_scenario`: the six-connection network of Fig. 7.52
  (Sec. 7.5.5): :func:`satcp.topology.thesis_fairness`;
- :data:`VARIANTS`, :data:`DELAYED_ACK`, :func:`variant_label`: the four
  TCP variants in the thesis tables' order, their labels, the two delayed
  ACK settings;
- running the parts' grids is the engine's (each part's ``experiment``,
  run by :func:`satcp.reproduce.experiment.measure` or ``run_experiment``).
"""

from __future__ import annotations

from ... import topology

#: The four variants in the order of the thesis tables, with their labels.
VARIANTS: tuple[tuple[str, str], ...] = (
    ("adalr-sack", "TCP-ADaLR SACK"),
    ("adalr-newreno", "TCP-ADaLR NewReno"),
    ("sack", "TCP SACK"),
    ("newreno", "TCP NewReno"),
)
#: Short labels, for table columns.
SHORT_LABELS = {
    "adalr-sack": "ADaLR SACK",
    "adalr-newreno": "ADaLR NewReno",
    "sack": "SACK",
    "newreno": "NewReno",
}
#: Delayed ACK enabled, disabled: the order of the thesis table columns.
DELAYED_ACK: tuple[bool, ...] = (True, False)


def variant_label(variant: str) -> str:
    """'adalr-sack' -> 'TCP-ADaLR SACK' (unknown names are returned as is)."""
    return dict(VARIANTS).get(variant, variant)


def short_label(variant: str) -> str:
    """'adalr-sack' -> 'ADaLR SACK' (unknown names are returned as is)."""
    return SHORT_LABELS.get(variant, variant)


# --- the thesis networks (Fig. 7.2, Fig. 7.52): the topology library's ---------

thesis_scenario = topology.thesis_network
fairness_scenario = topology.thesis_fairness
link_bound_s = topology.link_bound_s

RECEIVER_DELAY_S = topology.THESIS_FAIRNESS["receiver_delay_s"]
RTT_LABELS_MS = topology.THESIS_FAIRNESS["rtt_labels_ms"]
FAIRNESS_LINK_BPS = topology.THESIS_FAIRNESS["link_bps"]
FAIRNESS_LINK_DELAY_S = topology.THESIS_FAIRNESS["link_delay_s"]
FAIRNESS_FILE_BYTES = topology.THESIS_FAIRNESS["file_bytes"]
FAIRNESS_DURATION_S = topology.THESIS_FAIRNESS["duration_s"]
