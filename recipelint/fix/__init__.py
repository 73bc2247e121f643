"""Fixing: ``check --fix`` / ``--diff`` as minimal edits, each verified by re-reading.

``fixers`` (the fixers per rule code and applying them), ``fixedit`` (the text-edit
primitives every fixer uses), ``structural_fix`` (key renames and inserts through
ruamel.yaml's round trip), ``typography_fix`` (look-alike characters).

It may import ``check`` and everything below it; only ``lsp`` and the commands import it.
"""
