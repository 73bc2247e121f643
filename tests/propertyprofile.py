"""The hypothesis settings property tests share.

CI runs a fixed-seed bounded profile; `RECIPELINT_PROPERTIES=long` runs a soak that
draws fresh examples, and `RECIPELINT_PROPERTY_EXAMPLES` sets the count in either mode
(see docs/properties.md).
"""

from __future__ import annotations

import os
from collections.abc import Sequence

from hypothesis import HealthCheck, settings

LONG = os.environ.get("RECIPELINT_PROPERTIES") == "long"
# Generated recipes are large and slow to draw by design; neither is a fault of the test.
LARGE_INPUTS = (HealthCheck.too_slow, HealthCheck.data_too_large)


def property_profile(
    bounded: int, soak: int = 100_000, suppressed: Sequence[HealthCheck] = LARGE_INPUTS
) -> settings:
    """``bounded`` examples in CI, reproducible; ``soak`` fresh ones in a soak. A failure prints
    the blob that replays it."""
    examples = os.environ.get("RECIPELINT_PROPERTY_EXAMPLES", str(soak if LONG else bounded))
    return settings(
        max_examples=int(examples),
        derandomize=not LONG,
        deadline=None,
        database=None,
        print_blob=True,
        suppress_health_check=list(suppressed),
    )
