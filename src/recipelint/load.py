"""YAML files -> documents with js-yaml 4 values and a source position for every node.

(Interface stub; the implementation lands in the next commit.)
"""
