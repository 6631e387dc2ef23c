"""Shared test set-up, kept generic: the repository root importable, hypothesis profiles."""

from __future__ import annotations

import os
import sys
from pathlib import Path

from hypothesis import HealthCheck, settings

# `pytest` run directly (not `python -m pytest`) does not put the repository root on sys.path.
ROOT = str(Path(__file__).resolve().parent.parent)
if ROOT not in sys.path:
    sys.path.insert(0, ROOT)

# Whole games per example are slow-ish and their timing varies with machine load.
settings.register_profile(
    "default", deadline=None, suppress_health_check=[HealthCheck.too_slow], print_blob=True
)
settings.register_profile("ci", parent=settings.get_profile("default"), max_examples=200)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "default"))
