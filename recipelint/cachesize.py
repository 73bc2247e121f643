"""How many entries an in-process memo keyed by text from the recipes may hold.

A memo keyed by a release or a schema kind is bounded by the catalogs; one keyed by a flag
spelling, a value or an environment variable name as a recipe writes it grows with every
keystroke for as long as the language server runs. Those are least-recently-used caches of
this size: large enough that a whole-tree check of a large tree never evicts (the upstream
tree has a few hundred distinct flags and values), small enough to stay a few megabytes.
"""

TEXT_KEYED_ENTRIES = 4096
