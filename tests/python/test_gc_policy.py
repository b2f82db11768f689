"""The cycle collector's policy during long commands (satcp._gc_policy)."""

import gc

from satcp._gc_policy import THRESHOLDS, few_collections


def test_few_collections_freezes_and_restores():
    before = gc.get_threshold()
    frozen_before = gc.get_freeze_count()
    kept = [[]]  # a container that exists when the block starts
    with few_collections():
        assert gc.get_threshold() == THRESHOLDS
        assert gc.get_freeze_count() >= frozen_before + 1
        assert gc.is_tracked(kept)
        # A cycle made inside is still collected when asked.
        cycle = []
        cycle.append(cycle)
        del cycle
        assert gc.collect() >= 1
    assert gc.get_threshold() == before
    assert gc.get_freeze_count() == 0


def test_few_collections_restores_after_an_error():
    before = gc.get_threshold()
    try:
        with few_collections():
            raise RuntimeError("a command failed")
    except RuntimeError:
        pass
    assert gc.get_threshold() == before
    assert gc.get_freeze_count() == 0


def test_a_process_that_froze_objects_keeps_them_frozen():
    gc.freeze()
    try:
        frozen = gc.get_freeze_count()
        assert frozen > 0
        with few_collections():
            assert gc.get_threshold() == THRESHOLDS
        assert gc.get_freeze_count() == frozen
    finally:
        gc.unfreeze()
