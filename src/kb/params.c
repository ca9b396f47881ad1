/* kb/params: parameter counts from config fields, one function per family,
 * written from each architecture's modules (the counts in docs/estimation.md §6
 * are the unit tests). */
#include <stdbool.h>
#include <string.h>

#include "oomlint/kb.h"

typedef long long ll;

static ll field_or(ll v, ll fallback)
{
    return v >= 0 ? v : fallback;
}

static ll layer_norm(ll h)
{
    return 2 * h; /* weight and bias */
}

/* Encoder layer of BERT-like models: attention (q, k, v, o with biases),
 * two LayerNorms, and a two-matrix MLP with biases. */
static ll bert_layer(ll h, ll inter)
{
    return 4 * (h * h + h) + layer_norm(h) + (h * inter + inter) + (inter * h + h) + layer_norm(h);
}

static ll bert_like(const oom_model_config *c, bool pooler, bool token_types)
{
    ll h = c->hidden_size, v = c->vocab_size, inter = field_or(c->intermediate_size, 4 * h);
    ll pos = field_or(c->max_position_embeddings, 512);
    ll types = token_types ? field_or(c->type_vocab_size, 2) : 0;
    ll n = v * h + pos * h + types * h + layer_norm(h);
    n += c->num_hidden_layers * bert_layer(h, inter);
    if (pooler)
        n += h * h + h;
    return n;
}

static ll albert(const oom_model_config *c)
{
    ll h = c->hidden_size, e = field_or(c->embedding_size, 128);
    ll inter = field_or(c->intermediate_size, 4 * h), pos = field_or(c->max_position_embeddings, 512);
    ll types = field_or(c->type_vocab_size, 2);
    ll emb = c->vocab_size * e + pos * e + types * e + layer_norm(e);
    /* one layer shared by all (num_hidden_groups 1), after an E -> h projection */
    return emb + (e * h + h) + bert_layer(h, inter) + (h * h + h);
}

static ll gpt2(const oom_model_config *c)
{
    ll h = c->hidden_size, inter = field_or(c->intermediate_size, 4 * h);
    ll layer = (h * 3 * h + 3 * h) + (h * h + h) + 2 * layer_norm(h) + (h * inter + inter) + (inter * h + h);
    ll n = c->vocab_size * h + field_or(c->max_position_embeddings, 1024) * h;
    n += c->num_hidden_layers * layer + layer_norm(h);
    return c->tie_word_embeddings == 0 ? n + c->vocab_size * h : n;
}

static ll opt(const oom_model_config *c)
{
    ll h = c->hidden_size, inter = field_or(c->intermediate_size, 4 * h);
    ll n = c->vocab_size * h + (field_or(c->max_position_embeddings, 2048) + 2) * h; /* 2 offset rows */
    n += c->num_hidden_layers * bert_layer(h, inter) + layer_norm(h);
    return c->tie_word_embeddings == 0 ? n + c->vocab_size * h : n;
}

static ll gpt_neox(const oom_model_config *c)
{
    ll h = c->hidden_size, inter = field_or(c->intermediate_size, 4 * h);
    ll layer = 2 * layer_norm(h) + (h * 3 * h + 3 * h) + (h * h + h) + (h * inter + inter) + (inter * h + h);
    ll n = c->vocab_size * h + c->num_hidden_layers * layer + layer_norm(h);
    return c->tie_word_embeddings == 1 ? n : n + c->vocab_size * h; /* embed_out untied */
}

/* What sets one Llama-style decoder apart from another. */
typedef struct {
    bool qkv_bias;   /* Qwen2: q, k and v have biases */
    bool qk_norm;    /* Qwen3, Gemma 3: an RMSNorm (head_dim weights) over each head of q and of k */
    ll norms;        /* RMSNorms per layer: 2, or 4 in Gemma 2 and 3 (before and after each block) */
    ll experts;      /* Mixtral: experts and a router; 0 for a dense MLP */
} decoder_shape;

/* Llama-style decoders: RMSNorm (weight only), no biases (but Qwen2's q, k,
 * v), grouped-query attention, gated MLP; Mixtral: experts and a router. */
static ll llama_like(const oom_model_config *c, decoder_shape s)
{
    ll h = c->hidden_size, heads = c->num_attention_heads;
    ll kv = field_or(c->num_key_value_heads, heads);
    ll d = field_or(c->head_dim, heads > 0 ? h / heads : 0);
    ll attn = h * heads * d + 2 * h * kv * d + heads * d * h;
    if (s.qkv_bias)
        attn += heads * d + 2 * kv * d;
    if (s.qk_norm)
        attn += 2 * d;
    ll mlp = 3 * h * c->intermediate_size;
    if (s.experts > 0)
        mlp = s.experts * mlp + h * s.experts;
    ll n = c->vocab_size * h + c->num_hidden_layers * (attn + mlp + s.norms * h) + h;
    return c->tie_word_embeddings == 1 ? n : n + c->vocab_size * h;
}

/* ModernBERT: no biases, LayerNorms with a weight only, fused Wqkv, a GeGLU
 * MLP whose input matrix is h x 2·intermediate, RoPE (no position table),
 * and no norm before the first layer's attention (the embeddings' norm
 * serves). AutoModel: no head. */
static ll modernbert(const oom_model_config *c)
{
    ll h = c->hidden_size, inter = c->intermediate_size;
    ll layer = 2 * h + 3 * h * h + h * h + h * 2 * inter + inter * h;
    return c->vocab_size * h + h + c->num_hidden_layers * layer - h + h;
}

static ll phi(const oom_model_config *c)
{
    ll h = c->hidden_size, inter = field_or(c->intermediate_size, 4 * h);
    /* parallel block: one LayerNorm; q, k, v, dense and both MLP matrices biased */
    ll layer = layer_norm(h) + 4 * (h * h + h) + (h * inter + inter) + (inter * h + h);
    ll n = c->vocab_size * h + c->num_hidden_layers * layer + layer_norm(h);
    return c->tie_word_embeddings == 1 ? n : n + c->vocab_size * h + c->vocab_size; /* lm_head has a bias */
}

static ll t5(const oom_model_config *c)
{
    ll d = c->hidden_size, heads = c->num_attention_heads;
    ll kv = field_or(c->head_dim, heads > 0 ? d / heads : 0) * heads;
    ll ff = (c->gated_ffn ? 3 : 2) * d * c->intermediate_size;
    ll attn = 4 * d * kv, rel_bias = 32 * heads;
    ll enc_layers = c->num_hidden_layers, dec_layers = field_or(c->num_decoder_layers, enc_layers);
    ll enc = enc_layers * (attn + d + ff + d) + rel_bias + d;
    ll dec = dec_layers * (2 * attn + 2 * d + ff + d) + rel_bias + d;
    ll n = c->vocab_size * d + enc + dec;
    return c->tie_word_embeddings == 0 ? n + c->vocab_size * d : n;
}

static bool type_is(const oom_model_config *c, const char *t)
{
    return strcmp(c->model_type, t) == 0;
}

long long oom_model_param_count(const oom_model_config *c)
{
    if (c->hidden_size <= 0 || c->num_hidden_layers <= 0 || (c->vocab_size <= 0))
        return -1;
    if (type_is(c, "bert"))
        return bert_like(c, true, true);
    if (type_is(c, "roberta") || type_is(c, "xlm-roberta"))
        return bert_like(c, true, true);
    if (type_is(c, "distilbert"))
        return bert_like(c, false, false);
    if (type_is(c, "albert"))
        return albert(c);
    if (type_is(c, "gpt2"))
        return gpt2(c);
    if (type_is(c, "opt"))
        return c->word_embed_proj_dim > 0 && c->word_embed_proj_dim != c->hidden_size ? -1 : opt(c);
    if (type_is(c, "gpt_neox"))
        return gpt_neox(c);
    if (type_is(c, "llama") || type_is(c, "mistral") || type_is(c, "gemma") || type_is(c, "phi3"))
        return llama_like(c, (decoder_shape){.norms = 2});
    if (type_is(c, "qwen2"))
        return llama_like(c, (decoder_shape){.qkv_bias = true, .norms = 2});
    if (type_is(c, "qwen3"))
        return llama_like(c, (decoder_shape){.qk_norm = true, .norms = 2});
    if (type_is(c, "gemma2"))
        return llama_like(c, (decoder_shape){.norms = 4});
    if (type_is(c, "gemma3_text"))
        return llama_like(c, (decoder_shape){.qk_norm = true, .norms = 4});
    if (type_is(c, "mixtral"))
        return llama_like(c, (decoder_shape){.norms = 2, .experts = field_or(c->num_local_experts, 8)});
    if (type_is(c, "modernbert"))
        return c->intermediate_size > 0 ? modernbert(c) : -1;
    if (type_is(c, "phi"))
        return phi(c);
    if (type_is(c, "t5"))
        return t5(c);
    return -1;
}
