"""vLLM command-line knowledge: per-release flag catalogs."""
