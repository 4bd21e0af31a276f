"""The dataset: Parquet tables (one folder per table), import, recompute, DuckDB views."""
