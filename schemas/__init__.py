"""JSON Schemas for recipe trees, shipped as recipelint._schemas."""
