"""What a grading variant names: a prompt variant, harness settings of the LLM seat, or both.

``duel grade --variants baseline,history=all,think=text,compact+notes=on`` compares four
variants: the baseline prompt; the baseline prompt with ``history=all``; with ``think=text``;
and the ``compact`` prompt with ``notes=on``. A variant's parts are joined by ``+``: at most one
prompt variant (``baseline`` when none is named) and any harness settings (``key=value``,
duel.prompts.harness), and the tool loop's `tools=on` and `tool_steps=N`
(duel.agents.llm.toolloop). A setting is graded exactly as a prompt variant is: the same deals
from both seats, paired with the baseline, in a folder of its own named by the variant.
"""

from __future__ import annotations

from dataclasses import dataclass

from duel.agents.spec import split_spec
from duel.errors import PromptError, SpecError
from duel.prompts import Variant, get_variant
from duel.prompts.harness import OPTIONS, Harness

BASELINE = "baseline"
# LLM spec options graded as settings beside the harness's: the agent spec checks their values.
TOOL_OPTIONS = ("tools", "tool_steps")


@dataclass(frozen=True)
class GradeVariant:
    """A variant of a grading run: its name as given, its prompt variant and its harness."""

    name: str
    prompt: str
    harness: Harness
    tools: tuple[tuple[str, str], ...] = ()  # tools=on, tool_steps=N, as given

    @staticmethod
    def parse(name: str) -> GradeVariant:
        """SpecError names what is wrong: an unknown prompt variant or setting, a bad value,
        two prompt variants."""
        prompts: list[str] = []
        settings: dict[str, str] = {}
        tools: dict[str, str] = {}
        for part in (p.strip() for p in name.split("+")):
            if not part:
                raise SpecError(f"variant {name!r}: an empty part (parts are joined by '+')")
            key, sep, value = part.partition("=")
            if not sep:
                prompts.append(part)
            elif key in settings or key in tools:
                raise SpecError(f"variant {name!r} sets {key} twice")
            elif key in TOOL_OPTIONS:
                tools[key] = value
            else:
                settings[key] = value
        if len(prompts) > 1:
            raise SpecError(f"variant {name!r} names two prompt variants: "
                            f"{', '.join(prompts)}")
        prompt = prompts[0] if prompts else BASELINE
        try:
            get_variant(prompt)
        except PromptError as exc:
            raise SpecError(f"variant {name!r}: {exc}; or settings "
                            f"({', '.join([*OPTIONS, *TOOL_OPTIONS])}) as key=value") from None
        return GradeVariant(name, prompt, Harness.from_options(settings),
                            tuple(tools.items()))

    @property
    def variant(self) -> Variant:
        """The prompt variant."""
        return get_variant(self.prompt)

    def spec(self, model: str) -> str:
        """The model's agent spec with this variant's prompt and settings."""
        if not model.startswith("llm:"):
            raise SpecError(f"--model must be an llm: spec, got {model!r}")
        given = {k for k, _ in split_spec(model).options}
        if "prompt" in given:
            raise SpecError("--model must not set prompt=; --variants chooses it")
        settings = {**self.harness.options(), **dict(self.tools)}
        both = sorted(given & set(settings))
        if both:
            raise SpecError(f"--model sets {', '.join(both)}, which variant {self.name!r} "
                            "sets too: leave it to the variants")
        return f"{model},prompt={self.prompt}" + "".join(f",{k}={v}"
                                                         for k, v in settings.items())
