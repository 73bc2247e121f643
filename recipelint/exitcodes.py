"""The exit statuses of every command, defined once.

0: nothing to report; 1: findings (errors, or warnings with --strict), a changed command
for `diff --exit-code`; 2: a usage error or an internal error, a broken install included.
"""

from __future__ import annotations

EXIT_OK = 0
EXIT_FINDINGS = 1
EXIT_USAGE = 2
# An internal error shares the usage status: whatever failed, the run proved nothing.
EXIT_INTERNAL = EXIT_USAGE
