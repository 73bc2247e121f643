"""Reporting: findings and renderings turned into what a person or a tool reads.

``formats`` (text, JSON and GitHub annotations), ``sarif``, ``jobsummary`` (the GitHub
Action's Markdown summary), ``baseline`` (finding fingerprints, baseline files), ``showing``
(``recipelint show``: every token of a rendered command with the list it came from),
``diffing`` and ``sides`` (``recipelint diff``), ``schemaexport`` (``recipelint schema``).

It may import ``rules``, ``compile`` and everything below them; ``check``, ``fix``, ``lsp``
and the commands import it.
"""
