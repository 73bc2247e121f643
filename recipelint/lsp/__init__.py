"""`recipelint lsp`: a Language Server Protocol server for recipe trees.

Only :mod:`recipelint.lsp.library` imports the rest of recipelint; the feature modules
(diagnostics, hover, completion, actions, navigation) read the loaded tree through it,
and :mod:`recipelint.lsp.server` wires them to pygls.
"""
