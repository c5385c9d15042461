// "Copy as PyTorch": a Hugging Face transformers script that computes what the GPT-2 panel shows,
// on the model the panel has open: the layer's heads and the next tokens, and, when the panel
// uses them, the switched-off heads (head_mask for zero ablation, a hook for mean ablation), each
// layer's guess (the logit lens) and who wrote the answer (direct logit attribution, TransformerLens'
// apply_ln_to_stack by hand). No DOM.

// A Hugging Face file's address: https://huggingface.co/<repo>/resolve/<revision>/model.safetensors.
const HUB_FILE = /^https:\/\/huggingface\.co\/([\w.-]+(?:\/[\w.-]+)?)\/resolve\/([\w.-]+)\/[\w.-]+\.safetensors(?:\?.*)?$/;
const py = (value) => JSON.stringify(String(value)); // a JSON string is a valid Python string literal

/**
 * The lines of a script that load the model the panel has open, and a header line saying how:
 * from_pretrained on its Hugging Face repository when it was opened from there, else the learner's
 * own safetensors file (downloaded first when it came from another address) with its config.json,
 * or with the panel's numbers when no config.json was opened.
 * model: { name, url, configGiven, config: { layers, heads, dModel, context, vocabSize } }, or null
 * (no model described: openai-community/gpt2).
 */
export function modelLoading(model) {
  const hub = model ? HUB_FILE.exec(model.url ?? '') : ['', 'openai-community/gpt2', 'main'];
  if (hub) {
    return {
      header: `# The model: ${hub[1]} from the Hugging Face Hub (from_pretrained), the file the panel opened.`,
      code: `model = GPT2LMHeadModel.from_pretrained(${py(hub[1])}, revision=${py(hub[2])}, attn_implementation="eager")`,
      imports: '',
    };
  }
  const c = model.config ?? {};
  const numbers = `GPT2Config(n_layer=${c.layers}, n_head=${c.heads}, n_embd=${c.dModel}, n_positions=${c.context}, vocab_size=${c.vocabSize ?? 50257})`;
  const configLine = model.configGiven
    ? `config = GPT2Config.from_json_file(${model.url ? 'config_file' : '"config.json"'})  # the config.json opened beside it`
    : `config = ${numbers}  # the panel's numbers: no config.json was opened`;
  const where = model.url
    ? `weights, _ = urllib.request.urlretrieve(${py(model.url)})
${model.configGiven ? `config_file, _ = urllib.request.urlretrieve(${py(new URL('config.json', model.url).href)})
` : ''}`
    : `weights = ${py(model.name ?? 'model.safetensors')}  # the path of the file you opened in the panel
`;
  return {
    header: `# The model: your own file (${model.url ? model.url : model.name}), loaded from the safetensors${model.configGiven ? ' with its config.json' : ' with the shape the panel read (no config.json was opened)'}, not from the Hub.`,
    imports: `${model.url ? 'import urllib.request\n' : ''}from safetensors.torch import load_file\nfrom transformers import AutoModelForCausalLM, GPT2Config\n`,
    code: `${where}${configLine}
model = AutoModelForCausalLM.from_config(config, attn_implementation="eager")
# A checkpoint saved from GPT2LMHeadModel names its keys transformer.…; lm_head.weight is tied to wte.
state = {k.removeprefix("transformer."): v.float() for k, v in load_file(weights).items() if not k.startswith("lm_head.")}
missing, _ = model.transformer.load_state_dict(state, strict=False)
missing = [k for k in missing if not k.endswith(("attn.bias", "attn.masked_bias"))]
assert not missing, f"not in the file: {missing}"
model.tie_weights()`,
  };
}

/**
 * A complete Hugging Face transformers script that computes and plots the same layer's heads on the
 * same text (eager attention, so that output_attentions holds the weights), and prints the same
 * five next tokens, on the model the panel has open (modelLoading); with `ablate`
 * ([{ layer, head, mode }]) those heads switched off, with `lens` each layer's guess, with
 * `attribute` ({ id, token }) each part's direct contribution to that token's logit.
 */
export function pytorchScript({ text, layer, endOfTextFirst, model = null, ablate = [], lens = false, attribute = null }) {
  const loading = modelLoading(model);
  const zero = ablate.filter((a) => a.mode !== 'mean'), mean = ablate.filter((a) => a.mode === 'mean');
  const pairs = (list) => `[${list.map((a) => `(${a.layer}, ${a.head})`).join(', ')}]`;
  const switched = ablate.length === 0 ? '' : `
# Heads switched off, as in the panel. Zero: Hugging Face's head_mask (the head writes nothing;
# its weights in outputs.attentions are then zeros, where the panel still draws its pattern).
# Mean: a hook that replaces the head's output, before c_proj, by its mean over this text.
head_mask = torch.ones(model.config.n_layer, model.config.n_head)
for l, h in ${pairs(zero)}:
    head_mask[l, h] = 0
d_head = model.config.n_embd // model.config.n_head


def mean_ablation(heads):
    def hook(module, args):
        z = args[0].clone()  # (batch, tokens, d_model): the heads' outputs side by side
        for h in heads:
            part = z[..., h * d_head:(h + 1) * d_head]
            part[...] = part.mean(dim=1, keepdim=True)
        return (z,)
    return hook


for l in sorted({l for l, _ in ${pairs(mean)}}):
    heads_off = [h for ll, h in ${pairs(mean)} if ll == l]
    model.transformer.h[l].attn.c_proj.register_forward_pre_hook(mean_ablation(heads_off))
`;
  const attributing = attribute === null ? '' : `
# Who wrote the answer: what each part writes into the residual stream at the last token.
written = {}
for l, block in enumerate(model.transformer.h):
    block.attn.c_proj.register_forward_pre_hook(lambda m, args, l=l: written.__setitem__(("z", l), args[0][0, -1]))
    block.mlp.register_forward_hook(lambda m, args, out, l=l: written.__setitem__(("mlp", l), out[0, -1]))
model.transformer.ln_f.register_forward_pre_hook(lambda m, args: written.__setitem__("resid", args[0][0, -1]))
`;
  return `# GPT-2 layer ${layer}'s heads on your text, as attention-calc's panel shows them
# (layers and heads counted from 0). Needs: pip install torch transformers safetensors matplotlib
${loading.header}
import math

import matplotlib.pyplot as plt
import torch
from transformers import GPT2LMHeadModel, GPT2TokenizerFast
${loading.imports}
# The panel reads every model with GPT-2's own tokenizer.
tokenizer = GPT2TokenizerFast.from_pretrained("openai-community/gpt2")
${loading.code}
model.eval()
${switched}${attributing}
text = ${JSON.stringify(text)}
layer = ${layer}
ids = tokenizer(text)["input_ids"]
${endOfTextFirst ? 'ids = [tokenizer.eos_token_id] + ids  # "Start with <|endoftext|>", as TransformerLens does' : '# No <|endoftext|> first, as in Hugging Face (TransformerLens adds one)'}
with torch.no_grad():
    outputs = model(torch.tensor([ids]), output_attentions=True${lens || attribute !== null ? ', output_hidden_states=True' : ''}${zero.length ? ', head_mask=head_mask' : ''})

weights = outputs.attentions[layer][0]  # (heads, tokens, tokens), rows are queries
labels = [tokenizer.decode([i]).replace(" ", "\u2423") for i in ids]
heads = weights.shape[0]
columns = 4
rows = math.ceil(heads / columns)
figure, axes = plt.subplots(rows, columns, figsize=(4 * columns, 4 * rows), squeeze=False)
for head, ax in enumerate(axes.flat):
    if head >= heads:
        ax.axis("off")
        continue
    ax.imshow(weights[head].numpy(), cmap="viridis", vmin=0, vmax=1)
    ax.set_title(f"GPT-2 layer {layer} head {head}")
    ax.set_xticks(range(len(labels)), labels, rotation=90, fontsize=7)
    ax.set_yticks(range(len(labels)), labels, fontsize=7)
figure.tight_layout()
plt.show()

probabilities = outputs.logits[0, -1].softmax(-1)
for p, i in zip(*probabilities.topk(5)):
    print(repr(tokenizer.decode([int(i)])), f"{float(p):.3f}")
${lens ? lensPart : ''}${attribute === null ? '' : attributionPart(attribute)}`;
}

// Each layer's guess: the residual stream after each block through ln_f and the unembedding
// (hidden_states[-1] has been through ln_f already).
const lensPart = `
print("Each layer's guess (the logit lens):")
with torch.no_grad():
    for l in range(model.config.n_layer):
        h = outputs.hidden_states[l + 1][0, -1]
        if l < model.config.n_layer - 1:
            h = model.transformer.ln_f(h)
        p = model.lm_head(h).softmax(-1)
        print(l, [(tokenizer.decode([int(i)]), round(float(q), 3)) for q, i in zip(*p.topk(3))])
`;

// Direct logit attribution, as TransformerLens' apply_ln_to_stack: each part centred, divided by
// ln_f's scale of the whole residual at the last token, read against ln_f.weight ⊙ wte[token].
const attributionPart = (attribute) => `
token = ${attribute.id}  # ${JSON.stringify(attribute.token)}
with torch.no_grad():
    ln_f = model.transformer.ln_f
    resid = written["resid"]
    sigma = (resid.var(unbiased=False) + ln_f.eps).sqrt()
    direction = ln_f.weight * model.transformer.wte.weight[token]
    read = lambda c: float(((c - c.mean()) / sigma) @ direction)
    d_head = model.config.n_embd // model.config.n_head
    heads = [[read(written[("z", l)][h * d_head:(h + 1) * d_head] @ block.attn.c_proj.weight[h * d_head:(h + 1) * d_head])
              for h in range(model.config.n_head)] for l, block in enumerate(model.transformer.h)]
    mlps = [read(written[("mlp", l)] - block.mlp.c_proj.bias) for l, block in enumerate(model.transformer.h)]
    embeddings = read(outputs.hidden_states[0][0, -1])  # wte[id] + wpe[position]
    biases = read(sum(b.attn.c_proj.bias + b.mlp.c_proj.bias for b in model.transformer.h)) + float(ln_f.bias @ model.transformer.wte.weight[token])
    logit = float(outputs.logits[0, -1, token])
print("Who wrote the answer, the logit of", repr(tokenizer.decode([token])), round(logit, 3))
for l, row in enumerate(heads):
    print("layer", l, "heads", [round(x, 3) for x in row], "MLP", round(mlps[l], 3))
print("embeddings", round(embeddings, 3), "biases", round(biases, 3), "sum", round(sum(map(sum, heads)) + sum(mlps) + embeddings + biases, 3))
`;
