"""The model registry: built-in models plus `<agent dir>/models.json`, API keys, model patterns.

`models.json` follows Pi's schema (providers with `baseUrl`, `api`, `apiKey`, `headers`,
`compat`, `models[]`, `modelOverrides`). A bad file stops pith with a message naming the file and
the field; fields pith does not use yet are accepted and reported once as warnings. The keys
`pith auth login` saved come from `<agent dir>/auth.json` (`_auth_file`).
"""

from __future__ import annotations

import os
import subprocess
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

import msgspec

from pith.ai._auth_file import AuthFile, StoredKey
from pith.ai._builtin_providers import BUILTIN_PROVIDERS, default_api_for
from pith.ai._catalog import builtin_models
from pith.ai._models import THINKING_LEVELS, Model, ThinkingLevel
from pith.ai._wire import UNSET, WireError, convert
from pith.errors import ConfigError, InputError
from pith.json_input import JsonInputError, parse_json
from pith.regular_file import read_regular_file

__all__ = ["KeySource", "ModelChoice", "ModelRegistry", "ProviderConfig", "resolve_value"]

KNOWN_APIS = (
    "openai-completions",
    "openai-responses",
    "anthropic-messages",
    "google-generative-ai",
    "faux",
)
_PROVIDER_FIELDS = {
    "name", "baseUrl", "apiKey", "api", "oauth", "headers", "compat", "authHeader", "models",
    "modelOverrides",
}  # fmt: skip
_MODEL_FIELDS = {
    "id", "name", "api", "baseUrl", "reasoning", "thinkingLevelMap", "input", "inputLimits",
    "cost", "promptCache", "contextWindow", "maxTokens", "samplingParams",
    "samplingParamsByThinkingLevel", "headers", "compat",
}  # fmt: skip
_USED_MODEL_FIELDS = {
    "id", "name", "api", "baseUrl", "reasoning", "input", "cost", "contextWindow", "maxTokens",
    "samplingParams", "headers", "compat",
}  # fmt: skip


@dataclass
class ProviderConfig:
    """How to reach one provider: where, with which protocol, and its credentials."""

    id: str
    api: str
    base_url: str
    api_key: str | None = None
    """A literal key, `$ENV` / `${ENV}`, or `!command` (see `resolve_value`)."""
    api_key_origin: str = "models.json"
    """Where `api_key` was written (`<file>: providers.<id>.apiKey`), for messages."""
    env_keys: tuple[str, ...] = ()
    headers: dict[str, str] = field(default_factory=dict)
    auth_header: bool = False
    needs_key: bool = True
    compat: dict[str, object] = field(default_factory=dict)
    """The built-in provider's `compat` defaults, under each of its models' own flags."""
    stored_key: StoredKey | None = None
    """The key `pith auth login` saved in auth.json: used when nothing else gives one."""


@dataclass(frozen=True)
class KeySource:
    """Where a provider's key comes from (never the key itself)."""

    kind: Literal["--api-key", "models.json", "environment", "auth.json"]
    name: str
    """The variable's name, the `models.json` field (`<file>: providers.<id>.apiKey`), or the
    kind again."""


@dataclass(frozen=True)
class ModelChoice:
    model: Model
    thinking: ThinkingLevel | None
    """A level given as `provider/id:level`, else None."""
    assumed: bool = False
    """True when the id is not in the catalog nor in models.json: `model` has default limits
    (see `assumed_defaults_note`)."""


def resolve_value(spec: str, environ: Mapping[str, str], where: str = "models.json") -> str | None:
    """Resolve a `models.json` value: `$NAME`/`${NAME}` from the environment, `!cmd` from a
    command's output, `$$`/`$!` for a literal `$`/`!`, anything else literally. `where` names
    the file in the message of a command that fails."""
    if spec.startswith("$$") or spec.startswith("$!"):
        return spec[1:]
    if spec.startswith("${") and spec.endswith("}"):
        return environ.get(spec[2:-1]) or None
    if spec.startswith("$") and len(spec) > 1 and (spec[1:].replace("_", "a").isalnum()):
        return environ.get(spec[1:]) or None
    if spec.startswith("!"):
        try:
            completed = subprocess.run(
                spec[1:], shell=True, capture_output=True, text=True, timeout=30, check=False
            )
        except (OSError, subprocess.TimeoutExpired) as error:
            raise ConfigError(f"{where}: command {spec[1:]!r} failed: {error}") from None
        if completed.returncode != 0:
            raise ConfigError(
                f"{where}: command {spec[1:]!r} exited with code {completed.returncode}: "
                f"{completed.stderr.strip()[:200]}"
            )
        return completed.stdout.strip() or None
    return spec


class ModelRegistry:
    """Every model pith can use, and how to authenticate to its provider."""

    def __init__(
        self,
        models: list[Model],
        providers: dict[str, ProviderConfig],
        warnings: list[str] | None = None,
    ) -> None:
        self.models = models
        self.providers = providers
        self.warnings = warnings or []
        self._origins: dict[str, str] = {}

    @classmethod
    def load(cls, agent_dir: Path | None, *, stored_keys: bool = True) -> ModelRegistry:
        """Built-in models, plus `agent_dir/models.json` when it exists, and (with
        `stored_keys`) the keys saved in `agent_dir/auth.json`."""
        providers = {
            info.id: ProviderConfig(
                info.id,
                info.api,
                info.base_url,
                env_keys=info.env_keys,
                needs_key=info.needs_key,
                compat=dict(info.compat),
            )
            for info in BUILTIN_PROVIDERS.values()
        }
        registry = cls(builtin_models(), providers)
        if agent_dir is not None:
            path = agent_dir / "models.json"
            if path.is_file():
                registry._apply_file(path)
            if stored_keys:
                registry._apply_auth_file(AuthFile(agent_dir))
        return registry

    def _apply_auth_file(self, auth: AuthFile) -> None:
        for provider, stored in auth.entries().keys.items():
            if provider in self.providers:
                self.providers[provider].stored_key = stored
        loose = auth.loose_mode()
        if loose is not None:
            self.warnings.append(loose)

    # --- lookup -----------------------------------------------------------------------------

    def find(self, pattern: str, provider: str | None = None) -> ModelChoice:
        """The model a user means by `pattern` (`id`, `provider/id`, a name, with an optional
        `:thinking` suffix). Raises `InputError` listing close matches when none fits."""
        thinking: ThinkingLevel | None = None
        base, _, suffix = pattern.rpartition(":")
        level = next((level for level in THINKING_LEVELS if level == suffix), None)
        if base and level is not None:
            pattern = base
            thinking = level
        if provider is None and "/" in pattern:
            head, _, rest = pattern.partition("/")
            if head in self.providers:
                provider, pattern = head, rest
        candidates = [m for m in self.models if provider is None or m.provider == provider]
        lowered = pattern.lower()
        for found in (
            [m for m in candidates if m.id == pattern],
            [m for m in candidates if m.name.lower() == lowered],
            [m for m in candidates if m.id.lower() == lowered],
        ):
            if found:
                return ModelChoice(found[0], thinking)
        partial = [m for m in candidates if pattern.lower() in f"{m.id} {m.name}".lower()]
        if len(partial) == 1:
            return ModelChoice(partial[0], thinking)
        if provider is not None and provider in self.providers and pattern:
            # A model the catalog does not list yet, on a provider pith knows: use defaults.
            return ModelChoice(self.model_of(provider, pattern), thinking, assumed=True)
        if provider is not None and provider not in self.providers:
            known = ", ".join(sorted(self.providers))
            raise InputError(f"unknown provider {provider!r}; known providers: {known}")
        hint = ", ".join(m.key for m in partial[:8])
        more = f"; did you mean one of: {hint}" if hint else "; run `pith --list-models` to see all"
        raise InputError(f"no model matches {pattern!r}{more}")

    def model_of(self, provider: str, model_id: str) -> Model:
        """A model the catalog does not list, on a provider pith knows: the provider's address,
        protocol and `compat` defaults, default limits."""
        config = self.providers[provider]
        return Model(
            id=model_id,
            provider=provider,
            api=self.default_api(provider, model_id),
            base_url=config.base_url,
            compat=dict(config.compat) if config.compat else UNSET,
        )

    def default_api(self, provider: str, model_id: str) -> str:
        """The api of a model that names none: the catalog's rule for a built-in provider
        (OpenAI's reasoning families speak Responses), unless models.json gave the provider
        another api; that api for any other provider."""
        config = self.providers[provider]
        builtin = BUILTIN_PROVIDERS.get(provider)
        if builtin is not None and builtin.api == config.api:
            return default_api_for(provider, model_id)
        return config.api

    def add_local_models(self, provider: str, base_url: str, model_ids: list[str]) -> list[Model]:
        """Models found on a local server (`pith.ai` `find_local_models`), for this run."""
        self.providers[provider].base_url = base_url
        added = [self.model_of(provider, model_id) for model_id in model_ids]
        self.models.extend(added)
        self._origins.update((model.key, "local server") for model in added)
        return added

    def origin(self, model: Model) -> str:
        """Where `model` comes from: `catalog`, `models.json` (added or changed there), or
        `local server` (found running on this machine)."""
        return self._origins.get(model.key, "catalog")

    def available(self) -> list[Model]:
        """Models whose provider has credentials (or needs none)."""
        return [m for m in self.models if self.api_key(m) is not None or not self.needs_key(m)]

    def needs_key(self, model: Model) -> bool:
        """Whether requests to `model` cannot go without a key: true for the hosted providers
        pith knows (OpenAI, Anthropic, OpenRouter, ...); a provider added in models.json, and
        the local servers (Ollama, LM Studio), may run without one."""
        config = self.providers.get(model.provider)
        return config.needs_key if config else True

    # --- credentials ------------------------------------------------------------------------

    def api_key(
        self,
        model: Model,
        override: str | None = None,
        environ: Mapping[str, str] | None = None,
    ) -> str | None:
        """The key for `model`: `--api-key`, then models.json `apiKey`, then the environment,
        then the key `pith auth login` saved (auth.json)."""
        if override:
            return override
        env = os.environ if environ is None else environ
        config = self.providers.get(model.provider)
        if config is None:
            return None
        source = self.key_source(model.provider, environ=env)
        if source is None:
            return None
        if source.kind == "models.json":
            # What models.json names is the key, even when it resolves to nothing: the
            # provider's usual variable may hold a key meant for another server.
            assert config.api_key is not None
            return resolve_value(config.api_key, env)
        if source.kind == "environment":
            return env[source.name]
        assert config.stored_key is not None
        stored = config.stored_key
        return resolve_value(stored.key, {**env, **stored.env}, where="auth.json")

    def key_source(
        self, provider: str, override: str | None = None, environ: Mapping[str, str] | None = None
    ) -> KeySource | None:
        """Where `provider`'s key comes from now, without resolving it (no command runs):
        `--api-key`, models.json, an environment variable, auth.json; None when nothing
        gives one."""
        if override:
            return KeySource("--api-key", "--api-key")
        env = os.environ if environ is None else environ
        config = self.providers.get(provider)
        if config is None:
            return None
        if config.api_key:
            return KeySource("models.json", config.api_key_origin)
        for name in config.env_keys:
            if env.get(name):
                return KeySource("environment", name)
        if config.stored_key is not None:
            return KeySource("auth.json", "auth.json")
        return None

    def unresolved_key(self, model: Model, environ: Mapping[str, str] | None = None) -> str | None:
        """Why the `apiKey` models.json gives `model`'s provider yields no key (`<file>:
        providers.<id>.apiKey: $NAME is not set`), or None when it yields one or there is none."""
        env = os.environ if environ is None else environ
        config = self.providers.get(model.provider)
        if config is None or not config.api_key or resolve_value(config.api_key, env):
            return None
        spec = config.api_key
        if spec.startswith("!"):
            what = f"the command {spec[1:]!r} printed nothing"
        else:
            name = spec[2:-1] if spec.startswith("${") else spec[1:]
            what = f"${name} is not set"
        return f"{config.api_key_origin}: {what}"

    def request_headers(
        self, model: Model, environ: Mapping[str, str] | None = None
    ) -> dict[str, str]:
        """Extra HTTP headers for `model`: the provider's, then the model's (values resolved)."""
        env = os.environ if environ is None else environ
        merged: dict[str, str] = {}
        config = self.providers.get(model.provider)
        sources = [config.headers if config else {}]
        if isinstance(model.headers, dict):
            sources.append(model.headers)
        for source in sources:
            for name, spec in source.items():
                value = resolve_value(spec, env)
                if value is not None:
                    merged[name] = value
        return merged

    def needs_bearer_header(self, model: Model) -> bool:
        config = self.providers.get(model.provider)
        return bool(config and config.auth_header)

    # --- models.json ------------------------------------------------------------------------

    def _apply_file(self, path: Path) -> None:
        try:
            raw = read_regular_file(path)
        except OSError as error:
            raise ConfigError(f"{path}: cannot read: {error.strerror or error}") from None
        try:
            data = parse_json(raw, str(path), fix="fix the file or move it aside", unique_keys=True)
        except JsonInputError as error:
            raise ConfigError(str(error)) from None
        if not isinstance(data, dict) or not isinstance(data.get("providers", {}), dict):
            raise ConfigError(f'{path}: expected {{"providers": {{...}}}} at the top level')
        for provider_id, raw in data.get("providers", {}).items():
            where = f"{path}: providers.{provider_id}"
            if not isinstance(raw, dict):
                raise ConfigError(f"{where}: expected an object")
            self._apply_provider(provider_id, raw, where)

    def _apply_provider(self, provider_id: str, raw: dict[str, object], where: str) -> None:
        unknown = sorted(set(raw) - _PROVIDER_FIELDS)
        if unknown:
            self.warnings.append(f"{where}: unknown field(s) ignored: {', '.join(unknown)}")
        config = self.providers.get(provider_id)
        base_url = _optional_str(raw, "baseUrl", where)
        api = _optional_str(raw, "api", where)
        if api is not None and api not in KNOWN_APIS:
            raise ConfigError(
                f"{where}.api: {api!r} is not supported; use one of {', '.join(KNOWN_APIS)}"
            )
        if config is None:
            models = raw.get("models")
            if base_url is None or (api is None and not _models_all_have_api(models)):
                raise ConfigError(
                    f"{where}: a new provider needs `baseUrl` and `api` "
                    f"({', '.join(KNOWN_APIS[:2])})"
                )
            config = ProviderConfig(provider_id, api or "", base_url, needs_key=False)
            self.providers[provider_id] = config
        if base_url is not None:
            config.base_url = base_url
            for model in self.models:
                if model.provider == provider_id:
                    model.base_url = base_url
        if api is not None:
            config.api = api
        key = _optional_str(raw, "apiKey", where)
        if key is not None:
            config.api_key = key
            config.api_key_origin = f"{where}.apiKey"
        headers = raw.get("headers")
        if headers is not None:
            config.headers = _string_map(headers, f"{where}.headers")
        auth_header = raw.get("authHeader")
        if auth_header is not None:
            if not isinstance(auth_header, bool):
                raise ConfigError(f"{where}.authHeader: expected true or false")
            config.auth_header = auth_header
        for index, entry in enumerate(_list(raw.get("models"), f"{where}.models")):
            self._add_model(config, entry, raw, f"{where}.models[{index}]")
        overrides = raw.get("modelOverrides")
        if overrides is not None:
            if not isinstance(overrides, dict):
                raise ConfigError(f"{where}.modelOverrides: expected an object")
            for model_id, patch in overrides.items():
                self._override(provider_id, model_id, patch, f"{where}.modelOverrides.{model_id}")

    def _add_model(
        self, config: ProviderConfig, entry: object, provider_raw: dict[str, object], where: str
    ) -> None:
        if not isinstance(entry, dict):
            raise ConfigError(f"{where}: expected an object")
        ignored = sorted(set(entry) - _USED_MODEL_FIELDS)
        if ignored:
            self.warnings.append(f"{where}: field(s) not used by pith: {', '.join(ignored)}")
        values = {key: value for key, value in entry.items() if key in _USED_MODEL_FIELDS}
        model_id = values.get("id")
        if "api" not in values:
            named = isinstance(model_id, str) and bool(model_id)
            values["api"] = self.default_api(config.id, str(model_id)) if named else config.api
        values.setdefault("baseUrl", config.base_url)
        compat = provider_raw.get("compat")
        own_compat = values.get("compat")
        if own_compat is None or isinstance(own_compat, dict):  # else the model check says why
            merged = {
                **config.compat,
                **(compat if isinstance(compat, dict) else {}),
                **(own_compat or {}),
            }
            if merged:
                values["compat"] = merged
        values["provider"] = config.id
        if "id" not in values or not isinstance(values["id"], str) or not values["id"]:
            raise ConfigError(f"{where}.id: required, a non-empty string")
        if values["api"] not in KNOWN_APIS:
            raise ConfigError(f"{where}.api: {values['api']!r} is not supported")
        try:
            model = convert(values, Model)
        except WireError as error:
            raise ConfigError(_field_message(where, error)) from None
        self.models = [
            existing
            for existing in self.models
            if not (existing.provider == model.provider and existing.id == model.id)
        ]
        self.models.append(model)
        self._origins[model.key] = "models.json"

    def _override(self, provider_id: str, model_id: str, patch: object, where: str) -> None:
        if not isinstance(patch, dict):
            raise ConfigError(f"{where}: expected an object")
        for index, model in enumerate(self.models):
            if model.provider == provider_id and model.id == model_id:
                merged = msgspec.to_builtins(model)
                for key, value in patch.items():
                    if key not in _MODEL_FIELDS:
                        raise ConfigError(f"{where}.{key}: unknown field")
                    if isinstance(value, dict) and isinstance(merged.get(key), dict):
                        merged[key] = {**merged[key], **value}
                    elif key in _USED_MODEL_FIELDS:
                        merged[key] = value
                try:
                    self.models[index] = convert(merged, Model)
                except WireError as error:
                    raise ConfigError(_field_message(where, error)) from None
                self._origins[model.key] = "models.json"
                return


def _optional_str(raw: dict[str, object], key: str, where: str) -> str | None:
    value = raw.get(key)
    if value is None:
        return None
    if not isinstance(value, str):
        raise ConfigError(f"{where}.{key}: expected a string")
    return value


def _string_map(value: object, where: str) -> dict[str, str]:
    if not isinstance(value, dict) or not all(isinstance(v, str) for v in value.values()):
        raise ConfigError(f"{where}: expected an object of strings")
    return {str(k): str(v) for k, v in value.items()}


def _list(value: object, where: str) -> list[object]:
    if value is None:
        return []
    if not isinstance(value, list):
        raise ConfigError(f"{where}: expected a list")
    return value


def _models_all_have_api(models: object) -> bool:
    return (
        isinstance(models, list)
        and bool(models)
        and all(isinstance(m, dict) and isinstance(m.get("api"), str) for m in models)
    )


def _field_message(where: str, error: WireError) -> str:
    """`where.field: expected ...; fix that field`, from the decoder's `Expected `int`, got
    `str` - at `$.contextWindow``: the field joins the path the message starts with."""
    message, _, path = str(error).partition(" - at `$")
    return f"{where}{path.rstrip('`')}: {message[:1].lower()}{message[1:]}; fix that field"
