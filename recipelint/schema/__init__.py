"""The format and its schemas: the models that define it, and validating a document against them.

One module per job: :mod:`.model` (the format's one source: pydantic models) and
:mod:`.schemagen` (``python -m recipelint.schema.schemagen`` writes ``schemas/`` from them),
:mod:`.builtin` (the built-in schemas and the RL1xx codes), :mod:`.validators` (validator
building, with the ECMA-to-Rust regex translation), :mod:`.messages` and :mod:`.wording`
(error messages), :mod:`.dates` (YAML dates), :mod:`.formats` (format verdicts, as
jsonschema's), :mod:`.errors` (an invalid document's errors, listed by the compiled validator
when it can), :mod:`.overlay` (a tree's schema overlays, TOML included), :mod:`.adoption` (which
optional-then-required fields a tree has not adopted yet) and :mod:`.check` (the stage's
entry point).

Importers name the module they need: importing the package loads nothing, so a check
that takes every schema finding from its cache never builds a validator. It may import
``read`` and the top-level helpers only.
"""
