"""Reading a tree: YAML files into documents with positions, and the tree they form.

``load`` (the entry points: reading and decoding a file), ``document`` (a ``Document`` and its
positions), ``yaml_builder``, ``yaml_scalars`` and ``yaml_positions`` (js-yaml 4 values built
from libyaml's events), ``syntaxerrors`` (a YAML syntax error at the mistake), ``tree`` and
``recipefiles`` (a recipe tree on disk in upstream's reading order), ``configfile`` (where a
tree's configuration and schema overlays are), ``revision`` (a tree at a git revision),
``recipedata`` (the shapes of the data read, as mypy sees them: nothing checked at run time).

The bottom of the pipeline: it imports only the package's top-level helpers
(``diagnostics``, ``jsvalue``, ``checkcache``, ...), never another stage.
"""
