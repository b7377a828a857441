"""A tiny randomly initialised Qwen2 model and a byte-level BPE tokenizer made here, offline (no
hub download), with Qwen2.5's chat template (TRL's copy: it parses tool calls): what the GRPO
tests train."""

from __future__ import annotations

from pathlib import Path
from typing import Any

SPECIALS = ["<|endoftext|>", "<|im_start|>", "<|im_end|>", "<tool_call>", "</tool_call>"]


def tiny_tokenizer(corpus: list[str]) -> Any:
    """A byte-level BPE of 400 tokens (any text encodes) with Qwen2.5's chat template."""
    from importlib.resources import files

    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers
    from transformers import PreTrainedTokenizerFast

    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.decoder = decoders.ByteLevel()
    tok.train_from_iterator(corpus, trainers.BpeTrainer(
        vocab_size=400, special_tokens=SPECIALS,
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet()))
    fast = PreTrainedTokenizerFast(tokenizer_object=tok, eos_token="<|im_end|>",
                                   pad_token="<|endoftext|>")
    fast.chat_template = (files("trl") / "chat_templates" / "qwen2_5.jinja").read_text()
    return fast


def tiny_model(tokenizer: Any) -> Any:
    import torch
    from transformers import Qwen2Config, Qwen2ForCausalLM

    torch.manual_seed(0)
    config = Qwen2Config(vocab_size=len(tokenizer), hidden_size=16, intermediate_size=32,
                         num_hidden_layers=1, num_attention_heads=2, num_key_value_heads=1,
                         max_position_embeddings=8192, tie_word_embeddings=True,
                         eos_token_id=tokenizer.eos_token_id,
                         pad_token_id=tokenizer.pad_token_id)
    return Qwen2ForCausalLM(config)


def save_tiny(folder: Path, corpus: list[str]) -> Path:
    """A tiny model and its tokenizer saved as a transformers folder (what --model takes)."""
    tokenizer = tiny_tokenizer(corpus)
    tiny_model(tokenizer).save_pretrained(str(folder))
    tokenizer.save_pretrained(str(folder))
    return folder
