"""Masking, Drain3 mining with stable keys, and state restored from plain template rows."""
from __future__ import annotations

import random
import re

import pytest

from pipeline.mining import MaskCache, TemplateMiner, collapse_digits, mask, template_params


@pytest.mark.parametrize("raw, expected", [
    ("Please NOTE: device: 0, GPU Compute Capability: 8.6, Driver API Version: 12.2, Runtime API Version: 11.8",
     "Please NOTE: device: <NUM>, GPU Compute Capability: <NUM>, Driver API Version: <NUM>, Runtime API Version: <NUM>"),
    ("Cannot allocate 1.205566GB memory on GPU 0, available memory is only 800.375000MB.",
     "Cannot allocate <SIZE> memory on GPU <NUM>, available memory is only <SIZE>."),
    ("input shape [32, 3, 224, 224] from /usr/local/lib/python3.10/dist-packages/paddle/nn/layer.py",
     "input shape <SHAPE> from <PATH>"),
    ("trainer 3 connected to 10.0.0.3:6170 in 12.5s", "trainer <NUM> connected to <IP> in <DUR>"),
    ("run 123e4567-e89b-12d3-a456-426614174000 at 0x7f3a2b1c", "run <UUID> at <HEX>"),
    ("paddlepaddle-gpu 2.6.2 eta: 1:02:03", "paddlepaddle-gpu <VER> eta: <DUR>"),
])
def test_mask_replaces_variable_tokens(raw, expected):
    assert mask(raw) == expected


def test_mask_keeps_identifiers_that_carry_meaning():
    masked = mask("ImportError: libcublas.so.11: cannot open shared object file; op conv2d on sm_90")
    assert "libcublas.so.11" in masked and "conv2d" in masked and "sm_90" in masked


def test_digit_collapse_is_a_valid_dedupe_key():
    # Masks look at digit positions only, so lines equal after collapsing mask identically.
    rng = random.Random(7)
    for _ in range(200):
        a = f"epoch {rng.randint(0, 99)} loss {rng.random():.4f} at 0x{rng.randint(16, 1 << 40):x} size {rng.randint(1, 9)}.5GB"
        # any other digits ("0x" stays: it is syntax, not a number): same key, same mask
        b = re.sub(r"(?<!\w)0x|\d", lambda m: m.group() if m.group() == "0x" else str(rng.randint(0, 9)), a)
        assert collapse_digits(a) == collapse_digits(b)
        assert mask(a) == mask(b)
        # masks do not count digits either, so other run lengths still mask the same
        c = re.sub(r"(?<!\w)0x|\d+", lambda m: m.group() if m.group() == "0x" else
                   str(rng.randint(1, 10 ** rng.randint(1, 6))), a)
        assert mask(a) == mask(c)


def test_mask_cache_returns_one_key_per_masked_message():
    cache = MaskCache()
    keys, masked_of = cache.lookup(["loss 1.5 step 3", "loss 2.25 step 40", "Killed"])
    assert keys[0] == keys[1] != keys[2]
    assert masked_of[keys[0]] == "loss <NUM> step <NUM>"


MESSAGES = [
    "Load model from <PATH> failed",
    "Load model from <PATH> ok",
    "worker <NUM> started with pid <NUM>",
    "worker <NUM> started with tid <NUM>",
    "DataLoader reader thread raised an exception",
    "epoch <NUM> step <NUM> loss <NUM> lr <NUM>",
    "epoch <NUM> step <NUM> acc <NUM> lr <NUM>",
    "saving checkpoint to <PATH>",
]


def test_keys_survive_generalisation_and_restart():
    one = TemplateMiner()
    first_keys = one.learn(MESSAGES[:3])
    # "worker ... pid" and "worker ... tid" fall into one cluster: the template generalises,
    # its key does not change.
    second_keys = one.learn(MESSAGES[3:])
    assert second_keys[0] == first_keys[2]
    generalised = {t.template_key: t.template for t in one.templates()}
    assert generalised[first_keys[2]] == "worker <NUM> started with <*> <NUM>"

    # A miner rebuilt from plain rows continues exactly like one that never stopped.
    restarted = TemplateMiner(_rows_after(MESSAGES[:3]))
    assert restarted.learn(MESSAGES[3:]) == second_keys
    assert [(t.template_key, t.template) for t in restarted.templates()] == \
           [(t.template_key, t.template) for t in one.templates()]


def _rows_after(messages):
    miner = TemplateMiner()
    miner.learn(messages)
    return miner.templates()


def test_keys_do_not_depend_on_cluster_numbering():
    a = TemplateMiner()
    a.learn(["alpha <NUM> beta", "gamma delta"])
    b = TemplateMiner()
    b.learn(["gamma delta", "alpha <NUM> beta"])
    assert {t.template for t in a.templates()} == {t.template for t in b.templates()}
    assert {t.template_key for t in a.templates()} == {t.template_key for t in b.templates()}


def test_match_never_changes_the_template_set():
    miner = TemplateMiner()
    miner.learn(MESSAGES)
    before = [(t.template_key, t.template, t.cluster_id) for t in miner.templates()]
    assert miner.match("saving checkpoint to <PATH>") is not None
    assert miner.match("a message nobody has ever seen before here") is None
    assert miner.match("epoch <NUM> step <NUM> loss <NUM> lr <NUM>") == miner.match(
        "epoch <NUM> step <NUM> acc <NUM> lr <NUM>")
    assert [(t.template_key, t.template, t.cluster_id) for t in miner.templates()] == before


def test_template_params():
    assert template_params("worker <*> started with <*>", "worker 3 started with pid") == ["3", "pid"]
    assert template_params("a <*>", "a b c") == []
