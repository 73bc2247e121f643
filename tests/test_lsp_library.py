"""recipelint/lsp/library.py: what the language server shows, computed without the protocol."""

from __future__ import annotations

from rulehelp import MULTI_NODE


def test_the_hover_summary_is_the_deployment_of_the_rendered_command() -> None:
    from treehelp import tree_in_memory

    from recipelint.lsp import library
    from recipelint.rulebook.examples import merged_document

    rel = "models/acme/demo.yaml"
    text = merged_document(rel, MULTI_NODE + "variants:\n  default:\n    tp: 2\n")
    tree, doc = tree_in_memory(rel, text)
    lines = library.deployment_lines(tree, doc, "default", "h200", "single_node_tp")
    assert lines[:3] == [
        "single_node_tp on h200: 1 node × 8 GPUs",
        "GPUs: 2 used of 8 allotted (TP 2)",
        "platform: cuda, host x86_64",
    ]
    trays = library.deployment_lines(tree, doc, "default", "gb200", "multi_node_tp")
    assert trays[:2] == [
        "multi_node_tp on gb200: 2 nodes × 4 GPUs",
        "GPUs: 8 used of 8 allotted (TP 8)",
    ]
    assert "platform: cuda, host aarch64" in trays
