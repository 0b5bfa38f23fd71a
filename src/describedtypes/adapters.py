"""LLM adapters: what each provider's request takes, as small frozen strategy objects.

An adapter holds one provider's choices (the wrapper shape around the schema body, how
optional fields are spelled, which keywords and formats are accepted, the name rule, the
size limits, and the rules its output is checked against) and is passed to
``schema(obj, llm_adapter=...)``. Build your own with ``Adapter(...)`` or
``OPENAI.replace(...)``; the schema builder never branches on an adapter's identity.
"""

from ._schema.adapters import (
    ALL_KEYWORDS,
    ANTHROPIC,
    ANTHROPIC_LIMITS,
    ANTHROPIC_TOOLS,
    GEMINI,
    MCP_ELICITATION,
    MCP_TOOLS,
    OPENAI,
    OPENAI_CHAT_TOOLS,
    OPENAI_LIMITS,
    OPENAI_TOOLS,
    STANDARD,
    Adapter,
    Document,
    Limits,
    Problem,
    Rule,
    Wrapper,
    anthropic_output_format,
    anthropic_tool,
    bare_body,
    check,
    check_request,
    display_title,
    gemini_function,
    mcp_tool,
    openai_chat_tool,
    openai_response_format,
    openai_responses_tool,
)

__all__ = [
    "ALL_KEYWORDS",
    "Adapter",
    "Document",
    "Limits",
    "Problem",
    "Rule",
    "check",
    "check_request",
    "Wrapper",
    "anthropic_output_format",
    "anthropic_tool",
    "bare_body",
    "display_title",
    "gemini_function",
    "mcp_tool",
    "openai_chat_tool",
    "openai_response_format",
    "openai_responses_tool",
    "STANDARD",
    "OPENAI",
    "OPENAI_TOOLS",
    "OPENAI_CHAT_TOOLS",
    "ANTHROPIC_TOOLS",
    "ANTHROPIC",
    "GEMINI",
    "MCP_TOOLS",
    "MCP_ELICITATION",
    "OPENAI_LIMITS",
    "ANTHROPIC_LIMITS",
]


def __dir__() -> list[str]:
    return list(__all__)
