"""The shape of the makemore part 1 lecture notebook (a bigram model of names), run cell after cell, written here.

Counting: each bigram of 32k names added one at a time into a 27x27 tensor (`N[ix1, ix2] += 1`); rows
normalised; names sampled with torch.multinomial and a seeded Generator; the average negative
log-likelihood summed one bigram at a time. Then the same model as a one-layer network: F.one_hot of all
bigrams' first characters, a 27x27 W, softmax by hand, the loss with a regularizer, W.data updated by hand,
for the number of steps given as the first argument; then sampled again. The names are made here.
"""

import random
import sys

import torch
import torch.nn.functional as F

STEPS = int(sys.argv[1]) if len(sys.argv) > 1 else 100

rng = random.Random(0)
words = ["".join(rng.choices("abcdefghijklmnopqrstuvwxyz", k=rng.randint(3, 10))) for _ in range(32_000)]
chars = sorted(set("".join(words)))
stoi = {s: i + 1 for i, s in enumerate(chars)}
stoi["."] = 0
itos = {i: s for s, i in stoi.items()}

N = torch.zeros((27, 27), dtype=torch.int32)
for w in words:
    chs = [".", *w, "."]
    for ch1, ch2 in zip(chs, chs[1:]):
        N[stoi[ch1], stoi[ch2]] += 1

P = (N + 1).float()
P /= P.sum(1, keepdims=True)
g = torch.Generator().manual_seed(2147483647)
for _ in range(5):
    out, ix = [], 0
    while True:
        p = P[ix]
        ix = torch.multinomial(p, num_samples=1, replacement=True, generator=g).item()
        out.append(itos[ix])
        if ix == 0:
            break
    print("".join(out))

log_likelihood, n = 0.0, 0
for w in words:
    chs = [".", *w, "."]
    for ch1, ch2 in zip(chs, chs[1:]):
        prob = P[stoi[ch1], stoi[ch2]]
        logprob = torch.log(prob)
        log_likelihood += logprob
        n += 1
print(f"{log_likelihood=}")
print(f"{-log_likelihood / n=}")

xs, ys = [], []
for w in words:
    chs = [".", *w, "."]
    for ch1, ch2 in zip(chs, chs[1:]):
        xs.append(stoi[ch1])
        ys.append(stoi[ch2])
xs = torch.tensor(xs)
ys = torch.tensor(ys)
num = xs.nelement()
g = torch.Generator().manual_seed(2147483647)
W = torch.randn((27, 27), generator=g, requires_grad=True)
for _ in range(STEPS):
    xenc = F.one_hot(xs, num_classes=27).float()
    logits = xenc @ W
    counts = logits.exp()
    probs = counts / counts.sum(1, keepdims=True)
    loss = -probs[torch.arange(num), ys].log().mean() + 0.01 * (W**2).mean()
    print(loss.item())
    W.grad = None
    loss.backward()
    W.data += -50 * W.grad

g = torch.Generator().manual_seed(2147483647)
for _ in range(5):
    out, ix = [], 0
    while True:
        xenc = F.one_hot(torch.tensor([ix]), num_classes=27).float()
        p = (xenc @ W).exp()
        p = p / p.sum(1, keepdims=True)
        ix = torch.multinomial(p, num_samples=1, replacement=True, generator=g).item()
        out.append(itos[ix])
        if ix == 0:
            break
    print("".join(out))
