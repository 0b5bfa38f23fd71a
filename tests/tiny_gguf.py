"""Write a tiny llama-architecture GGUF model with random weights, for a real llama.cpp
server in the tests (nothing downloaded).

Run: python tests/tiny_gguf.py OUT.gguf [--seed N]  (needs the ``gguf`` package and numpy)

The vocabulary is SentencePiece-style with byte fallback: ``<unk>``, ``<s>``, ``</s>``,
then one token per byte (``<0x00>`` ... ``<0xFF>``), so any text, and any grammar, can be
written. The weights are random; the output layer favours the bytes that end a JSON value
(``"`` ``}`` ``]`` ``,``) so that strings stay short, while the server's grammar decides
what is allowed. Random text, valid JSON: what a structured-output server is for.
"""

from __future__ import annotations

import argparse
import sys


def write(path: str, seed: int = 0) -> None:
    import gguf
    import numpy as np

    rng = np.random.default_rng(seed)
    n_vocab, n_embd, n_ff, n_head, n_layer, n_ctx = 259, 64, 128, 4, 1, 2048
    writer = gguf.GGUFWriter(path, "llama")
    writer.add_name("describedtypes-tiny")
    writer.add_context_length(n_ctx)
    writer.add_embedding_length(n_embd)
    writer.add_block_count(n_layer)
    writer.add_feed_forward_length(n_ff)
    writer.add_head_count(n_head)
    writer.add_head_count_kv(n_head)
    writer.add_layer_norm_rms_eps(1e-5)
    writer.add_rope_dimension_count(n_embd // n_head)
    writer.add_file_type(gguf.LlamaFileType.ALL_F32)

    tokens = [b"<unk>", b"<s>", b"</s>"] + [f"<0x{i:02X}>".encode() for i in range(256)]
    types = [gguf.TokenType.UNKNOWN, gguf.TokenType.CONTROL, gguf.TokenType.CONTROL] + [
        gguf.TokenType.BYTE] * 256
    writer.add_tokenizer_model("llama")
    writer.add_token_list(tokens)
    writer.add_token_scores([0.0] * n_vocab)
    writer.add_token_types(types)
    writer.add_bos_token_id(1)
    writer.add_eos_token_id(2)
    writer.add_unk_token_id(0)
    writer.add_add_bos_token(True)
    writer.add_add_eos_token(False)

    def weights(*shape: int, scale: float = 0.02) -> object:
        return (rng.standard_normal(shape) * scale).astype(np.float32)

    output = weights(n_vocab, n_embd)
    # A bias the random hidden state cannot cancel: one embedding dimension is held high
    # by the final norm's weight, and the closing bytes read it.
    output[:, 0] = 0.0
    for byte in b'"}],':
        output[3 + byte, 0] = 4.0
    output[2, 0] = 6.0  # </s>: stop as soon as the grammar allows
    embd = weights(n_vocab, n_embd)
    embd[:, 0] = 1.0
    norm = np.ones(n_embd, dtype=np.float32)
    norm[0] = 8.0
    writer.add_tensor("token_embd.weight", embd)
    writer.add_tensor("output_norm.weight", norm)
    writer.add_tensor("output.weight", output)
    for i in range(n_layer):
        writer.add_tensor(f"blk.{i}.attn_norm.weight", np.ones(n_embd, dtype=np.float32))
        writer.add_tensor(f"blk.{i}.attn_q.weight", weights(n_embd, n_embd))
        writer.add_tensor(f"blk.{i}.attn_k.weight", weights(n_embd, n_embd))
        writer.add_tensor(f"blk.{i}.attn_v.weight", weights(n_embd, n_embd))
        writer.add_tensor(f"blk.{i}.attn_output.weight", weights(n_embd, n_embd))
        writer.add_tensor(f"blk.{i}.ffn_norm.weight", np.ones(n_embd, dtype=np.float32))
        writer.add_tensor(f"blk.{i}.ffn_gate.weight", weights(n_ff, n_embd))
        writer.add_tensor(f"blk.{i}.ffn_up.weight", weights(n_ff, n_embd))
        writer.add_tensor(f"blk.{i}.ffn_down.weight", weights(n_embd, n_ff))
    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_tensors_to_file()
    writer.close()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    write(args.out, args.seed)
    return 0


if __name__ == "__main__":
    sys.exit(main())
