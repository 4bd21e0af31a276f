"""Where the shared samples are: ``../shared`` of the main checkout, or of a worktree's parent."""

from __future__ import annotations

from pathlib import Path

_ROOT = Path(__file__).resolve().parents[1]
SHARED = next(
    (p / "shared" for p in (_ROOT.parent, _ROOT.parent.parent) if (p / "shared").is_dir()),
    _ROOT.parent / "shared",
)
APPS = SHARED / "samples" / "apps"
SWC = SHARED / "samples" / "swc"
