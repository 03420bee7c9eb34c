"""The one place that converts pith's typed objects to and from Pi's JSON.

Every wire type derives from `WireStruct`: camelCase names on the wire, snake_case in Python, and
optional Pi fields default to `UNSET` so that a field absent in the input stays absent in the
output. Unknown fields are not dropped: the strict decoder refuses them, and the lenient path
below moves them into `extra`, from where `to_builtins` puts them back.
"""

from __future__ import annotations

import functools
import types
import typing
from collections.abc import Callable
from typing import Any, TypeVar, cast

import msgspec

from pith.json_input import JsonInputError, check_json_limits

__all__ = [
    "UNSET",
    "UnsetType",
    "WireError",
    "WireStruct",
    "convert",
    "decode_json",
    "encode_json",
    "to_builtins",
]

UNSET = msgspec.UNSET
UnsetType = msgspec.UnsetType

T = TypeVar("T")

# The wire name of the `extra` field. No Pi object has a key like this one.
_EXTRA_KEY = "__extra__"


class WireError(ValueError):
    """A JSON value that does not fit the expected shape; the message names the path."""


class WireStruct(
    msgspec.Struct,
    rename="camel",
    forbid_unknown_fields=True,
    kw_only=True,
):
    """Base of every Pi-compatible JSON object.

    `extra` holds fields pith does not know, so that rewriting a record never loses them.
    """

    extra: dict[str, object] | UnsetType = msgspec.field(default=UNSET, name=_EXTRA_KEY)


def to_builtins(obj: object) -> Any:
    """`obj` as JSON-ready builtins (dicts with camelCase keys), unknown fields put back."""
    built = msgspec.to_builtins(obj)
    if _carries_extra(obj):
        _restore_extra(obj, built)
    return built


def encode_json(obj: object) -> bytes:
    """`obj` as compact JSON bytes, unknown fields put back."""
    if _carries_extra(obj):
        return msgspec.json.encode(to_builtins(obj))
    return msgspec.json.encode(obj)


def decode_json(data: bytes | str, tp: type[T]) -> T:
    """Decode JSON text into `tp`, keeping unknown fields; raises `WireError` on a bad shape."""
    decoder = cast("msgspec.json.Decoder[T]", _strict_decoder(cast(object, tp)))
    try:
        check_json_limits(data, "JSON", fix="")
    except JsonInputError as error:
        raise WireError(f"invalid JSON: {error.reason}") from None
    try:
        return decoder.decode(data)
    except msgspec.ValidationError:
        pass
    except msgspec.DecodeError as error:
        raise WireError(f"invalid JSON: {error}") from None
    return convert(msgspec.json.decode(data), tp)


def convert(value: object, tp: type[T]) -> T:
    """Convert decoded JSON builtins into `tp`, keeping unknown fields in `extra`."""
    try:
        return msgspec.convert(value, tp)
    except msgspec.ValidationError:
        pass
    return cast(T, _lenient(value, tp, "$"))


@functools.cache
def _strict_decoder(tp: object) -> msgspec.json.Decoder[object]:
    return msgspec.json.Decoder(cast(type[object], tp))


# --- encoding -------------------------------------------------------------------------------


def _carries_extra(obj: object) -> bool:
    if isinstance(obj, WireStruct):
        if obj.extra is not UNSET:
            return True
        return any(_carries_extra(getattr(obj, name)) for name in _nested_fields(type(obj)))
    if isinstance(obj, list):
        return any(_carries_extra(item) for item in obj)
    return False


def _restore_extra(obj: object, built: object) -> None:
    if isinstance(obj, WireStruct) and isinstance(built, dict):
        extra = built.pop(_EXTRA_KEY, None)
        if isinstance(extra, dict):
            for key, value in extra.items():
                built.setdefault(key, value)
        for name in _nested_fields(type(obj)):
            encode_name = _encode_names(type(obj))[name]
            if encode_name in built:
                _restore_extra(getattr(obj, name), built[encode_name])
    elif isinstance(obj, list) and isinstance(built, list):
        for item, built_item in zip(obj, built, strict=True):
            _restore_extra(item, built_item)


@functools.cache
def _encode_names(cls: type[msgspec.Struct]) -> dict[str, str]:
    return {field.name: field.encode_name for field in msgspec.structs.fields(cls)}


@functools.cache
def _nested_fields(cls: type[msgspec.Struct]) -> tuple[str, ...]:
    """Names of the fields whose type can hold another `WireStruct`."""
    return tuple(
        field.name
        for field in msgspec.structs.fields(cls)
        if field.name != "extra" and _may_hold_struct(field.type)
    )


def _may_hold_struct(annotation: object) -> bool:
    if isinstance(annotation, type) and issubclass(annotation, WireStruct):
        return True
    return any(_may_hold_struct(arg) for arg in typing.get_args(annotation))


# --- lenient decoding -----------------------------------------------------------------------


def _lenient(value: object, annotation: object, path: str) -> object:
    if not _may_hold_struct(annotation):
        try:
            return msgspec.convert(value, cast(type, annotation))
        except msgspec.ValidationError as error:
            raise WireError(_located(str(error), path)) from None
    if isinstance(annotation, type) and issubclass(annotation, WireStruct):
        return _lenient_struct(value, annotation, path)
    origin = typing.get_origin(annotation)
    args = typing.get_args(annotation)
    if origin is list:
        if not isinstance(value, list):
            raise WireError(f"Expected `array`, got `{_json_type(value)}` - at `{path}`")
        return [_lenient(item, args[0], f"{path}[{index}]") for index, item in enumerate(value)]
    if origin in (typing.Union, types.UnionType):
        return _lenient_union(value, args, path)
    raise WireError(f"Unsupported type at `{path}`")  # pragma: no cover - a programming error


def _lenient_union(value: object, args: tuple[object, ...], path: str) -> object:
    structs = [arg for arg in args if isinstance(arg, type) and issubclass(arg, WireStruct)]
    if isinstance(value, dict) and structs:
        chosen = _pick_tagged(value, structs)
        if chosen is not None:
            return _lenient_struct(value, chosen, path)
    errors: list[str] = []
    for arg in args:
        if arg in structs and not isinstance(value, dict):
            continue
        try:
            return _lenient(value, arg, path)
        except WireError as error:
            errors.append(str(error))
    if errors:
        raise WireError(errors[-1])
    raise WireError(f"Expected one of the allowed shapes, got `{_json_type(value)}` - at `{path}`")


def _pick_tagged(
    value: dict[str, object], structs: list[type[WireStruct]]
) -> type[WireStruct] | None:
    for cls in structs:
        config = cls.__struct_config__
        tag_field = config.tag_field
        if tag_field is not None and value.get(tag_field) == config.tag:
            return cls
    tagged = [cls for cls in structs if cls.__struct_config__.tag_field is not None]
    if tagged:
        tag_field = tagged[0].__struct_config__.tag_field
        tags = ", ".join(repr(cls.__struct_config__.tag) for cls in tagged)
        raise WireError(
            f"Invalid value {value.get(str(tag_field))!r} for `{tag_field}`; expected one of {tags}"
        )
    return structs[0] if len(structs) == 1 else None


def _lenient_struct(value: object, cls: type[WireStruct], path: str) -> WireStruct:
    if not isinstance(value, dict):
        raise WireError(f"Expected `object`, got `{_json_type(value)}` - at `{path}`")
    config = cls.__struct_config__
    fields = {field.encode_name: field for field in msgspec.structs.fields(cls)}
    kwargs: dict[str, object] = {}
    extra: dict[str, object] = {}
    for key, item in value.items():
        if key == config.tag_field:
            continue
        field = fields.get(key)
        if field is None or field.name == "extra":
            extra[key] = item
            continue
        kwargs[field.name] = _lenient(item, field.type, f"{path}.{key}")
    for encode_name, field in fields.items():
        if field.name not in kwargs and field.required:
            raise WireError(f"Object missing required field `{encode_name}` - at `{path}`")
    if extra:
        kwargs["extra"] = extra
    factory = cast(Callable[..., WireStruct], cls)
    return factory(**kwargs)


def _located(message: str, path: str) -> str:
    # msgspec reports paths from its own root (`$`); prefix ours.
    return (
        message.replace("- at `$", f"- at `{path}", 1)
        if "- at `$" in message
        else f"{message} - at `{path}`"
    )


def _json_type(value: object) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, int | float):
        return "number"
    if isinstance(value, str):
        return "str"
    if isinstance(value, list):
        return "array"
    if isinstance(value, dict):
        return "object"
    return type(value).__name__
