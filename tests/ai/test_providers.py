"""Which provider speaks each api, and the error for an api pith does not speak."""

from __future__ import annotations

import pytest

from pith.ai import Model, provider_for
from pith.ai._registry import KNOWN_APIS
from pith.errors import ConfigError


@pytest.mark.parametrize("api", KNOWN_APIS)
def test_every_known_api_has_a_provider(api: str) -> None:
    provider = provider_for(Model(id="m", provider="p", api=api))
    assert provider is provider_for(Model(id="other", provider="q", api=api))


def test_an_unknown_api_is_refused_with_every_api_pith_speaks() -> None:
    with pytest.raises(ConfigError) as caught:
        provider_for(Model(id="m", provider="p", api="carrier-pigeon"))
    message = str(caught.value)
    assert message.startswith("model p/m uses api 'carrier-pigeon', which pith does not speak")
    assert "\n" not in message
    for api in KNOWN_APIS:
        assert api in message
