"""A tiny character-level transformer: each character attends to those before it, then guesses the next.

The text below is cut into windows of BLOCK characters. Each character becomes the sum of a token
embedding and a position embedding, then goes through two transformer blocks: causal self-attention
(each position may look only at itself and the positions before it) and a small MLP, each with a
layer norm before it and a residual connection around it. A last layer norm and a linear head score
every character of the vocabulary. One step is one AdamW update on a batch of windows drawn at
random; the loss starts near ln(V), uniform guessing among the V characters, and falls far below it. Then the model
writes a line, one character at a time, each time reading back at most BLOCK characters.

Under `graphscope run`, every attention score, mask and softmax weight is a node of the graph.

Run it with:  python samples/tiny_transformer.py
"""

import math

import graphscope as gs
from graphscope import nn, optim
from graphscope.nn import functional as F

TEXT = """\
one fish, two fish, red fish, blue fish.
the red fish sees the blue fish, and the blue fish sees the red one.
one fish swims up, two fish swim down, and all the fish swim home.
"""
BLOCK = 16  # the longest context the model reads
BATCH = 8  # windows per step


class CausalSelfAttention(nn.Module):
    """Multi-head attention of a sequence over itself, each position seeing only the ones up to it."""

    def __init__(self, dim, heads):
        super().__init__()
        self.heads = heads
        self.qkv = nn.Linear(dim, 3 * dim)  # queries, keys and values in one matmul
        self.proj = nn.Linear(dim, dim)

    def forward(self, x):
        batch, length, dim = x.shape
        q, k, v = self.qkv(x).split(dim, dim=2)
        # (batch, length, dim) -> (batch, heads, length, dim / heads): each head attends on its own
        q, k, v = (t.view(batch, length, self.heads, dim // self.heads).transpose(1, 2) for t in (q, k, v))
        y = F.scaled_dot_product_attention(q, k, v, is_causal=True)  # softmax(q kᵀ / sqrt(d) + mask) v
        return self.proj(y.transpose(1, 2).reshape(batch, length, dim))


class Block(nn.Module):
    """x + attention(norm(x)), then x + mlp(norm(x))."""

    def __init__(self, dim, heads):
        super().__init__()
        self.norm1 = nn.LayerNorm(dim)
        self.attn = CausalSelfAttention(dim, heads)
        self.norm2 = nn.LayerNorm(dim)
        self.mlp = nn.Sequential(nn.Linear(dim, 4 * dim), nn.GELU(), nn.Linear(4 * dim, dim))

    def forward(self, x):
        x = x + self.attn(self.norm1(x))
        return x + self.mlp(self.norm2(x))


class TinyTransformer(nn.Module):
    """Token and position embeddings -> blocks -> layer norm -> a score for every character."""

    def __init__(self, vocab_size, dim=24, heads=4, layers=2):
        super().__init__()
        self.tokens = nn.Embedding(vocab_size, dim)
        self.positions = nn.Embedding(BLOCK, dim)
        self.blocks = nn.Sequential(*[Block(dim, heads) for _ in range(layers)])
        self.norm = nn.LayerNorm(dim)
        self.head = nn.Linear(dim, vocab_size)

    def forward(self, ids):
        x = self.tokens(ids) + self.positions(gs.arange(ids.shape[1]))
        return self.head(self.norm(self.blocks(x)))


def main(steps=300, verbose=True):
    gs.manual_seed(0)
    vocab = sorted(set(TEXT))
    index = {ch: i for i, ch in enumerate(vocab)}
    ids = [index[ch] for ch in TEXT]
    starts = range(len(ids) - BLOCK)  # every window: each character is seen at every position
    windows = gs.tensor([ids[s:s + BLOCK] for s in starts])  # (windows, BLOCK)
    following = gs.tensor([ids[s + 1:s + BLOCK + 1] for s in starts])  # the same, one character on

    model = TinyTransformer(len(vocab))
    optimizer = optim.AdamW(model.parameters(), lr=0.01, weight_decay=0.01)
    uniform = math.log(len(vocab))
    if verbose:
        print(f"{len(TEXT)} characters in {len(starts)} windows of {BLOCK}, vocabulary of {len(vocab)}: "
              f"uniform guessing loss ln {len(vocab)} = {uniform:.4f}")

    losses = []
    for step in range(steps):
        batch = gs.randint(0, len(starts), (BATCH,))  # a few windows at random each step
        logits = model(windows[batch])
        loss = F.cross_entropy(logits.reshape(-1, len(vocab)), following[batch].reshape(-1))
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
        if verbose and (step % 25 == 0 or step == steps - 1):
            print(f"step {step:3d}  loss {loss.item():.4f}")

    # Write: start from "one " and sample each next character from the model's softmax.
    model.eval()
    written = [index[ch] for ch in "one "]
    with gs.no_grad():
        for _ in range(60):
            logits = model(gs.tensor([written[-BLOCK:]]))
            probs = logits[0, -1].softmax(dim=-1)
            written.append(gs.multinomial(probs, num_samples=1).item())  # one draw, weighted by probs
    sample = "".join(vocab[i] for i in written)
    if verbose:
        print("sample:", sample.replace("\n", " / "))
    return {"losses": losses, "uniform_loss": uniform, "sample": sample}


if __name__ == "__main__":
    import sys

    main(*map(int, sys.argv[1:2]))  # an optional argument: the number of steps (the tests run few)
