/* estimate: the memory model. Every constant names its source. */
#include "oomlint/estimate.h"

#include <stddef.h>
#include <stdio.h>
#include <string.h>

#define MIB (1024.0 * 1024.0)

/* HF "model training anatomy": 1343 MB occupied after the first CUDA tensor
 * on a V100 (context and kernels), before any model memory. */
#define OOM_CUDA_CONTEXT_BYTES (1343.0 * MIB)
/* With lazy module loading (CUDA >= 11.7 and PyTorch >= 1.13, which turns it
 * on; the default from CUDA 12.2), only the kernels a run uses are loaded:
 * PyTorch's PR #86509 measured 287,047,680 B after a first small tensor with
 * lazy loading, against 666,632,192 B without (docs/estimation.md §10).
 * Current PyTorch is the default; older stacks ask for the eager figure. */
#define OOM_CUDA_CONTEXT_LAZY_BYTES 287047680.0
/* The caching allocator keeps more than the live tensors: the HF bert-large
 * table's residual after the formulas is 5-15% of the rest (docs/estimation.md §3.2). */
#define OOM_ALLOCATOR_SLACK 0.10

const char *oom_precision_name(oom_precision p)
{
    static const char *const names[] = {"fp32", "fp16 mixed precision", "bf16 mixed precision",
                                        "16-bit weights", "8-bit weights", "4-bit (NF4) weights"};
    return names[p];
}

long long oom_estimate_lora_features(const oom_estimate_input *in, const char *t)
{
    long long h = in->hidden;
    long long kv = in->kv_heads > 0 && in->heads > 0 ? h / in->heads * in->kv_heads : h;
    long long mlp = in->intermediate > 0 ? in->intermediate : 4 * h;
    static const char *const square[] = {"q_proj", "o_proj", "query", "out_proj", "dense", "q", "o", NULL};
    static const char *const narrow[] = {"k_proj", "v_proj", "key", "value", "k", "v", NULL};
    static const char *const wide[] = {"gate_proj", "up_proj", "down_proj", "fc1", "fc2", "c_fc", "w1", "w2",
                                       "w3", "wi", "wo", NULL};
    if (h <= 0)
        return 0;
    for (int i = 0; square[i]; i++)
        if (strcmp(t, square[i]) == 0)
            return 2 * h;
    for (int i = 0; narrow[i]; i++)
        if (strcmp(t, narrow[i]) == 0)
            return h + kv;
    for (int i = 0; wide[i]; i++)
        if (strcmp(t, wide[i]) == 0)
            return h + mlp;
    if (strcmp(t, "c_attn") == 0 || strcmp(t, "query_key_value") == 0 || strcmp(t, "qkv_proj") == 0)
        return h + h + 2 * kv; /* fused q, k, v */
    return 0;
}

long long oom_estimate_lora_all_linear_features(const oom_estimate_input *in)
{
    long long h = in->hidden;
    long long kv = in->kv_heads > 0 && in->heads > 0 ? h / in->heads * in->kv_heads : h;
    long long mlp = in->intermediate > 0 ? in->intermediate : 4 * h;
    long long attention = 2 * h + 2 * h + 2 * (h + kv); /* q, o, k, v */
    return attention + (in->gated_mlp ? 3 : 2) * (h + mlp);
}

unsigned oom_estimate_lora_input_of(const char *t)
{
    static const char *const attn[] = {"q_proj", "k_proj", "v_proj", "query", "key", "value", "q", "k", "v",
                                       "c_attn", "query_key_value", "qkv_proj", "Wqkv", NULL};
    static const char *const out[] = {"o_proj", "out_proj", "dense", "o", NULL};
    static const char *const mlp[] = {"gate_proj", "up_proj", "fc1", "c_fc", "w1", "w3", "wi", "fc_1", "fc_2",
                                      "fc", "gate_up_proj", NULL};
    static const char *const down[] = {"down_proj", "fc2", "w2", "wo", NULL};
    if (strcmp(t, "all-linear") == 0)
        return OOM_LORA_KEEPS_ALL;
    const char *const *lists[] = {attn, out, mlp, down};
    const unsigned bits[] = {OOM_LORA_KEEPS_ATTN_INPUT, OOM_LORA_KEEPS_OUT_INPUT, OOM_LORA_KEEPS_MLP_INPUT,
                             OOM_LORA_KEEPS_DOWN_INPUT};
    for (int l = 0; l < 4; l++)
        for (int i = 0; lists[l][i]; i++)
            if (strcmp(t, lists[l][i]) == 0)
                return bits[l];
    return 0;
}

void oom_estimate_count_lora_target(oom_estimate_input *in, const char *t)
{
    unsigned bits = oom_estimate_lora_input_of(t);
    if (bits == OOM_LORA_KEEPS_ALL) { /* q, k, v; o; gate and up (or fc); down */
        in->lora_targets_by_input[0] += 3;
        in->lora_targets_by_input[1] += 1;
        in->lora_targets_by_input[2] += in->gated_mlp ? 2 : 1;
        in->lora_targets_by_input[3] += 1;
        return;
    }
    for (int i = 0; i < 4; i++)
        if (bits & (1u << i))
            in->lora_targets_by_input[i]++;
}

const char *oom_optimizer_name(oom_optimizer o)
{
    static const char *const names[] = {"AdamW", "SGD", "SGD with momentum", "Adafactor",
                                        "8-bit Adam"};
    return names[o];
}

double oom_estimate_zero_model_states(double params, int stage, int nd)
{
    /* ZeRO §3.1/§5: 2Ψ fp16 weights + 2Ψ fp16 grads + KΨ optimizer (K = 12:
     * fp32 weights, momentum, variance); stage s shards the last s terms. */
    double w = 2 * params, g = 2 * params, o = 12 * params;
    if (nd < 1)
        nd = 1;
    switch (stage) {
    case 1:
        return w + g + o / nd;
    case 2:
        return w + (g + o) / nd;
    case 3:
        return (w + g + o) / nd;
    default:
        return w + g + o;
    }
}

double oom_estimate_deepspeed_zero2_gpu(double params, int gpus, bool offload_optimizer, bool legacy)
{
    if (gpus < 1)
        gpus = 1;
    if (offload_optimizer)
        return 2 * params; /* fp16 parameters stay on the GPU */
    if (legacy)
        return 4 * params + (double)(long long)(16 * params / gpus);
    /* 2 fp16 params + (2 fp16 grads + 4 fp32 grads + 4 fp32 params + 8 Adam) / gpus */
    return 2 * params + (double)(long long)(18 * params / gpus);
}

double oom_estimate_deepspeed_zero3_gpu(double params, double largest_layer, int gpus,
                                        bool offload_optimizer, bool offload_params)
{
    if (gpus < 1)
        gpus = 1;
    double largest = 4 * largest_layer; /* the gathered fp16 params and grads of one layer */
    if (offload_optimizer && offload_params)
        return largest;
    if (offload_optimizer)
        return largest + (double)(long long)(2 * params / gpus);
    return largest + (double)(long long)(18 * params / gpus);
}

/* Parameters bitsandbytes leaves in 16 or 32 bits in a quantised model: the
 * input embedding, the LM head unless it is tied or quantised itself, and
 * (too small to count) the norms. Only a known vocabulary and width say. */
static double unquantized_params(const oom_estimate_input *in)
{
    if (in->vocab <= 0 || in->hidden <= 0)
        return 0;
    double table = (double)in->vocab * (double)in->hidden;
    double n = table + (in->tied_embeddings || in->head_quantized ? 0 : table);
    return n < (double)in->params ? n : 0;
}

/* Bytes per quantised weight: bitsandbytes' 4-bit formats store two weights
 * a byte and one absmax per block of 64 (fp32; with double quantisation an
 * 8-bit absmax plus one fp32 per 256 blocks: bitsandbytes docs, "4-bit
 * quantization", blocksize 64 for weights); LLM.int8() one byte and an fp32
 * scale per output row (negligible). */
static double quantized_weight_bytes(const oom_estimate_input *in)
{
    if (in->precision == OOM_PREC_INT8)
        return 1.0;
    return 0.5 + (in->double_quant ? 1.0 / 64 + 4.0 / (64 * 256) : 4.0 / 64);
}

/* Base weights: one precision for a plain model; for a quantised one the
 * quantised layers and the 16/32-bit rest apart. */
static double parameter_bytes(const oom_estimate_input *in)
{
    double p = (double)in->params;
    switch (in->precision) {
    case OOM_PREC_FP32:
        return 4 * p;
    case OOM_PREC_AMP_FP16:
    case OOM_PREC_AMP_BF16:
        /* HF anatomy: 6 bytes/param in mixed precision (fp32 master + 16-bit
         * copy); for a CNN the copy is measured too: autocast kept 2 bytes per
         * conv/linear weight for backward (cnn_profile.py, autocast_constant_bytes) */
        return in->training ? 6 * p : 2 * p;
    case OOM_PREC_PURE_BF16:
        return 2 * p;
    case OOM_PREC_INT8:
    case OOM_PREC_NF4: {
        double rest = unquantized_params(in);
        double rest_bytes = in->unquantized_bytes > 0 ? in->unquantized_bytes : 2;
        return (p - rest) * quantized_weight_bytes(in) + rest * rest_bytes;
    }
    }
    return 4 * p;
}

/* Whether only adapters train (LoRA, adapters): their own dtype then. */
/* Adapters (LoRA) train beside a base: parameters of their own. A frozen
 * base's head is part of the model, counted among its parameters. */
static bool adapters_only(const oom_estimate_input *in)
{
    return in->trainable > 0 && in->trainable < in->params && !in->frozen_backbone;
}

/* Bytes per trainable parameter's value (weight, gradient, each Adam state):
 * peft keeps adapters in fp32 (autocast_adapter_dtype, the default since
 * peft 0.12) whatever the base; a model trained wholly in 16 bits keeps its
 * gradients and states in 16 bits; otherwise fp32. */
static double trainable_value_bytes(const oom_estimate_input *in)
{
    if (adapters_only(in))
        return in->adapter_bytes > 0 ? in->adapter_bytes : 4;
    return in->precision == OOM_PREC_PURE_BF16 ? 2.0 : 4.0;
}

static double weight_bytes(const oom_estimate_input *in)
{
    /* BatchNorm running statistics stay fp32 whatever the precision; the
     * adapters are parameters of their own, beside the base */
    double adapters = in->training && adapters_only(in) ? trainable_value_bytes(in) * (double)in->trainable : 0;
    return parameter_bytes(in) + in->buffer_bytes + adapters;
}

static double gradient_bytes(const oom_estimate_input *in)
{
    if (!in->training)
        return 0;
    return trainable_value_bytes(in) * (double)in->trainable;
}

static double optimizer_bytes(const oom_estimate_input *in)
{
    if (!in->training)
        return 0;
    double t = (double)in->trainable;
    switch (in->optimizer) {
    case OOM_OPT_ADAMW:
        /* two states per parameter, in the parameters' dtype */
        return 2 * trainable_value_bytes(in) * t;
    case OOM_OPT_SGD:
        return 0;
    case OOM_OPT_SGD_MOMENTUM:
        return 4 * t;
    case OOM_OPT_ADAFACTOR:
        /* factored second moment: rows + columns per matrix, ~8/h bytes per
         * parameter (HF measured ~0 B/param for bert-large) */
        return in->hidden > 0 ? 8.0 * t / (double)in->hidden : 0;
    case OOM_OPT_ADAM_8BIT:
        /* bitsandbytes: HF measured ~2.2 B/param */
        return 2.2 * t;
    }
    return 8 * t;
}

/* Whether bitsandbytes' MatMul4Bit keeps the inputs of the 4-bit layers:
 * before 0.43.2, forward stored ctx.tensors = (A, B) whenever an input
 * needed grad (bitsandbytes/autograd/_functions.py, 0.41.1 line 523), and
 * under LoRA the activations need grad, so every 4-bit layer kept its input
 * although backward only needs B. A frozen 16-bit nn.Linear keeps it only if
 * its weight needs grad (PyTorch's generated MmBackward0/AddmmBackward0 save
 * the input under should_compute_output of the weight). */
static bool keeps_quantized_inputs(const oom_estimate_input *in)
{
    return in->bnb_keeps_inputs && in->precision == OOM_PREC_NF4 && in->training && !in->frozen_backbone;
}

/* What those kept inputs add per token and hidden unit to a layer, in the
 * 16-bit compute dtype: the distinct tensors the block's 4-bit layers read
 * that nothing else keeps. The attention's input (the norm output q, k, v
 * read); the MLP's input, unless one norm feeds both (phi, GPT-J); the
 * output projection's input only with eager attention (SDPA and
 * FlashAttention keep their output, of which it is a view); the down
 * projection's input, m = intermediate / hidden wide. A LoRA branch without
 * dropout keeps its target's input anyway (lora_kept_inputs). */
static double quantized_input_bytes_per_token_hidden(const oom_estimate_input *in)
{
    if (!keeps_quantized_inputs(in) || in->hidden <= 0)
        return 0;
    unsigned kept = in->lora_kept_inputs;
    double m = in->intermediate > 0 ? (double)in->intermediate / (double)in->hidden : 4.0;
    bool attn_kept = (kept & OOM_LORA_KEEPS_ATTN_INPUT) || (in->shared_block_norm && (kept & OOM_LORA_KEEPS_MLP_INPUT));
    double n = attn_kept ? 0 : 1;
    if (!in->shared_block_norm && !(kept & OOM_LORA_KEEPS_MLP_INPUT))
        n += 1;
    if (!in->memory_efficient_attention && !(kept & OOM_LORA_KEEPS_OUT_INPUT))
        n += 1;
    if (!(kept & OOM_LORA_KEEPS_DOWN_INPUT))
        n += m;
    return 2.0 * n;
}

/* A 4-bit model whose norms peft upcast runs its layers around an fp32
 * residual stream, and its 4-bit layers in fp32 wherever their input is:
 * prepare_model_for_kbit_training casts every 16-bit parameter that is not
 * a Params4bit to fp32 (peft 0.11.1 utils/other.py line 126), so each RMS
 * norm returns fp32 (transformers MistralRMSNorm.forward: weight *
 * hidden_states.to(input_dtype), the weight fp32), and bitsandbytes'
 * Linear4bit takes an fp32 input's dtype as its compute dtype and returns
 * its output in the input's dtype, under autocast too (0.43.1
 * nn/modules.py lines 411-415 set_compute_type, line 470 out.to(inp_dtype)).
 * Read for a SwiGLU layer whose attention is FlashAttention/SDPA, which
 * takes q, k, v back to 16 bits (MistralFlashAttention2: "silently casted
 * in float32"). */
static bool fp32_stream_layer(const oom_estimate_input *in)
{
    return in->precision == OOM_PREC_NF4 && in->unquantized_bytes == 4 && in->training && !in->frozen_backbone &&
           in->gated_mlp && in->memory_efficient_attention && in->hidden > 0 && in->intermediate > 0 &&
           in->heads > 0 && in->image_bytes <= 0 && !in->module_defined;
}

/* What such a layer keeps for backward, bytes per token and hidden unit
 * (m = intermediate / hidden, kv = K/V heads / heads), tensor by tensor:
 *   - its input (fp32; the checkpoint itself when checkpointed, whose
 *     output is then alive instead through the recomputed backward): 4;
 *   - the attention's q, k, v and output, in 16 bits as FlashAttention
 *     keeps them: 2 + 4kv + 2; the output projection reads that output;
 *   - the second norm's input, the fp32 residual: 4;
 *   - the gate's output (SiLU keeps it), SiLU's output and the up
 *     projection's (the product keeps both), fp32: 12m;
 *   - the fp32 inputs of the 4-bit layers, where something keeps them:
 *     bitsandbytes before 0.43.2 (MatMul4Bit's ctx.tensors = (A, B),
 *     0.43.1 autograd/_functions.py line 516), or without autocast a LoRA
 *     branch without dropout, whose A saves the input it multiplies:
 *     attention input 4, MLP input 4, the product (down's input) 4m;
 *   - each LoRA branch's own copies: under autocast its A casts an fp32
 *     input to 16 bits and keeps the cast (autocast caches only the casts
 *     of leaf parameters that need grad: PyTorch aten/src/ATen/
 *     autocast_mode.cpp, cached_cast): 2 per unit of width; without
 *     autocast peft casts a 16-bit input (the output projection's) to the
 *     adapter's fp32, and keeps that: 4 (peft 0.11.1 tuners/lora/bnb.py
 *     lines 468-471); with dropout, its 1-byte mask and the dropped-out
 *     input, in the dtype A computes in: 1 + 2 under autocast, 1 + 4 not.
 * Only the layer's own weights are 4-bit; the head stays as it was. */
static double fp32_stream_kept_per_token_hidden(const oom_estimate_input *in)
{
    double h = (double)in->hidden, m = (double)in->intermediate / h;
    double kv = in->kv_heads > 0 ? (double)in->kv_heads / (double)in->heads : 1.0;
    const double width[4] = {1, 1, 1, m};             /* attention in, attention out, MLP in, down in */
    const bool fp32_input[4] = {true, false, true, true}; /* the attention's output is 16-bit */
    bool dropout = in->lora_dropout_modules > 0;
    double n = 4 + (2 + 4 * kv + 2) + 4 + 12 * m;
    for (int i = 0; i < 4; i++) {
        int targets = in->lora_targets_by_input[i];
        bool lora_keeps = targets > 0 && !dropout && !in->autocast;
        if (fp32_input[i] && (in->bnb_keeps_inputs || lora_keeps))
            n += 4 * width[i];
        if (dropout)
            n += targets * width[i] * (1 + (in->autocast ? 2 : 4));
        else if (in->autocast && fp32_input[i])
            n += targets * width[i] * 2;
        else if (!in->autocast && !fp32_input[i])
            n += targets * width[i] * 4;
    }
    return n;
}

/* The gradients alive together at the largest moment of such a layer's
 * backward, bytes per token and hidden unit: the product's backward, which
 * computes the gradients of SiLU's output and of the up projection's
 * (4m each, fp32) while the product's own (4m; MatMul4Bit returns it in 16
 * bits and autograd casts it to its fp32 input's dtype) and the residual's
 * incoming gradient (4) are alive. Once per backward, not per layer. */
static double fp32_stream_backward_per_token_hidden(const oom_estimate_input *in)
{
    return 4 + 12 * (double)in->intermediate / (double)in->hidden;
}

/* Bytes per token and hidden unit one layer keeps for backward, 16-bit
 * tensors. Korthikanti et al. Eq. 1 for a GPT/BERT layer (4h GeLU MLP,
 * dropout): 34, plus 5as/h of attention scores that SDPA/FlashAttention do
 * not keep. A SwiGLU decoder layer (LLaMA, Mistral, Qwen2; no dropout),
 * counted the same way with its real widths (kv = K/V heads / heads, m =
 * intermediate / hidden): attention 10 + 4kv (norm input, projections'
 * input, q, k, v, the attention output and the output projection's input),
 * rotary embeddings 2 + 2kv (q and k before rotation), MLP 4 + 8m (norm
 * input, input, gate, up, activation, product). Each LoRA target with
 * dropout keeps a 1-byte mask and a 16-bit copy of its input: 3. */
static double layer_bytes_per_token_hidden(const oom_estimate_input *in)
{
    double s = (double)in->seq_len, h = (double)in->hidden, a = (double)in->heads;
    double scores = in->memory_efficient_attention || h <= 0 ? 0 : 5.0 * a * s / h;
    /* LoRA dropout's copies, and the inputs old bitsandbytes keeps */
    double extra = 3.0 * in->lora_dropout_modules + quantized_input_bytes_per_token_hidden(in);
    if (!in->gated_mlp || h <= 0 || in->intermediate <= 0)
        return 34.0 + scores + extra;
    double kv = in->kv_heads > 0 && in->heads > 0 ? (double)in->kv_heads / a : 1.0;
    double m = (double)in->intermediate / h;
    return 10.0 + 4.0 * kv + 2.0 + 2.0 * kv + 4.0 + 8.0 * m + scores + extra;
}

static double layer_activation_bytes(const oom_estimate_input *in)
{
    double s = (double)in->seq_len, b = (double)in->micro_batch, h = (double)in->hidden;
    if (fp32_stream_layer(in)) /* its dtypes are counted tensor by tensor */
        return s * b * h * fp32_stream_kept_per_token_hidden(in);
    double bytes16 = s * b * h * layer_bytes_per_token_hidden(in);
    /* fp32 tensors: twice; autocast keeps softmax/LayerNorm/GELU outputs in
     * fp32: 0.81x the fp32 figure measured by HF (docs/estimation.md §3.2) */
    switch (in->precision) {
    case OOM_PREC_FP32:
        return 2.0 * bytes16;
    case OOM_PREC_AMP_FP16:
    case OOM_PREC_AMP_BF16:
        return 0.81 * 2.0 * bytes16;
    default:
        return bytes16;
    }
}

/* Bytes per value of the residual stream between layers: fp32 in fp32
 * training and in a quantised model whose norms peft upcast to fp32. */
static double residual_bytes(const oom_estimate_input *in)
{
    bool fp32_norms = (in->precision == OOM_PREC_NF4 || in->precision == OOM_PREC_INT8) && in->unquantized_bytes == 4;
    return in->precision == OOM_PREC_FP32 || fp32_norms ? 4.0 : 2.0;
}

/* With gradient checkpointing: one checkpoint (the layer input) per layer. */
static double checkpoint_bytes(const oom_estimate_input *in)
{
    if (!in->training || in->layers <= 0 || !in->gradient_checkpointing || in->image_bytes > 0)
        return 0;
    return (double)in->layers * residual_bytes(in) * (double)in->seq_len * (double)in->micro_batch *
           (double)in->hidden;
}

/* A 4-bit LM head keeps its input too (the final norm's output, once). */
static double quantized_head_input_bytes(const oom_estimate_input *in)
{
    if (!keeps_quantized_inputs(in) || !in->head_quantized || !in->lm_head)
        return 0;
    return 2.0 * (double)in->micro_batch * (double)in->seq_len * (double)in->hidden;
}

/* The decoder of an encoder-decoder runs over the target: its layers'
 * tensors are the target's length, the encoder's the input's (the decoder's
 * cross-attention reads the encoder's output, kept once). */
static bool has_shorter_target(const oom_estimate_input *in)
{
    return in->decoder_layers > 0 && in->decoder_layers < in->layers && in->target_len > 0 &&
           in->target_len < in->seq_len;
}

/* What all the layers keep: the encoder's at the input length, the
 * decoder's at the target's. */
static double all_layers_activation_bytes(const oom_estimate_input *in)
{
    if (!has_shorter_target(in))
        return (double)in->layers * layer_activation_bytes(in);
    oom_estimate_input dec = *in;
    dec.seq_len = in->target_len;
    return (double)(in->layers - in->decoder_layers) * layer_activation_bytes(in) +
           (double)in->decoder_layers * layer_activation_bytes(&dec);
}

static double activation_bytes(const oom_estimate_input *in)
{
    if (in->layers <= 0)
        return 0;
    double layer = layer_activation_bytes(in);
    /* inference, or a frozen base, keeps nothing for backward: the layers'
     * tensors live one layer at a time, as in a forward pass without grad
     * (estimation.md 9.7, 9.8); the prompt's step is the largest */
    if (!in->training || in->frozen_backbone)
        return layer;
    /* checkpointed: the checkpoints, plus one layer recomputed in full
     * during backward (Korthikanti §5) */
    /* the gradients of the largest backward step, where they are counted */
    double grads = fp32_stream_layer(in) ? (double)in->seq_len * (double)in->micro_batch * (double)in->hidden *
                                               fp32_stream_backward_per_token_hidden(in)
                                         : 0;
    if (in->gradient_checkpointing)
        return checkpoint_bytes(in) + layer + grads;
    return all_layers_activation_bytes(in) + grads + quantized_head_input_bytes(in);
}

/* Tokens of a ViT: one per patch, plus the class token. */
static double vit_tokens(double h, double w, double patch)
{
    return (double)((long long)(h / patch) * (long long)(w / patch)) + 1.0;
}

/* How a per-image figure measured at image_ref x image_ref grows to the
 * script's size. A CNN's feature maps are proportional to H x W (resnet50 and
 * vgg16 at 160 and 320 px are within 0.3% of the H x W ratio of their 224 px
 * figure; efficientnet_b0 at 300 px 2% above it, its odd strides round up;
 * cnn_profile.py "scaling"). A ViT layer keeps per token what Korthikanti's
 * Eq. 1 counts, 34·h bytes (16-bit), but of the attention's 5·a·s bytes only
 * the softmax output's 2·a·s: torchvision's ViT has no attention dropout, so
 * no mask and no dropout output. That shape, anchored on the 224 px figure,
 * is within 1% of vit_b_16 measured at 384 px. */
static double image_scale(const oom_estimate_input *in)
{
    double ref = (double)in->image_ref;
    double h = in->image_h > 0 ? (double)in->image_h : ref, w = in->image_w > 0 ? (double)in->image_w : ref;
    if (ref <= 0)
        return 1;
    if (in->patch <= 0 || in->hidden <= 0)
        return h * w / (ref * ref);
    double a = (double)in->heads, hid = (double)in->hidden, p = (double)in->patch;
    double s = vit_tokens(h, w, p), s0 = vit_tokens(ref, ref, p);
    return s * (34.0 + 2.0 * a * s / hid) / (s0 * (34.0 + 2.0 * a * s0 / hid));
}

/* Image models: measured bytes per image x micro-batch x size. With the
 * backbone frozen, autograd keeps nothing for the layers whose inputs do not
 * require grad; what is left is the head's input and the forward pass's own
 * working set (inputs already folded into image_bytes_frozen). */
static double image_activation_bytes(const oom_estimate_input *in)
{
    if (!in->training)
        return 0;
    double per_image = in->image_bytes;
    if (in->frozen_backbone)
        per_image = in->image_bytes_frozen;
    else if (in->precision == OOM_PREC_AMP_FP16 || in->precision == OOM_PREC_AMP_BF16)
        per_image = in->image_bytes_amp > 0 ? in->image_bytes_amp : in->image_bytes;
    else if (in->precision != OOM_PREC_FP32)
        per_image = in->image_bytes / 2; /* a 16-bit model: every tensor 16-bit */
    return per_image * (double)in->micro_batch * image_scale(in);
}

/* A model the script defines: the outputs of its layers (already doubled for
 * the nonlinearity or norm after each, modules.c), per sample, per position
 * and per pixel, at 4 bytes in fp32, 0.81 x that under autocast (the ratio HF
 * measured, docs/estimation.md §3.2) and 2 bytes in a 16-bit model
 * (docs/estimation.md §11). */
static double module_activation_bytes(const oom_estimate_input *in)
{
    if (!in->training)
        return 0;
    double ref = (double)in->module_ref;
    double h = in->image_h > 0 ? (double)in->image_h : ref, w = in->image_w > 0 ? (double)in->image_w : ref;
    double pixels = ref > 0 ? h * w / (ref * ref) : 1;
    double elems = in->module_sample_elems + in->module_token_elems * (double)in->seq_len +
                   in->module_spatial_elems * pixels;
    double bytes = 4.0;
    if (in->precision == OOM_PREC_AMP_FP16 || in->precision == OOM_PREC_AMP_BF16)
        bytes = 0.81 * 4.0;
    else if (in->precision != OOM_PREC_FP32)
        bytes = 2.0;
    return elems * bytes * (double)in->micro_batch;
}

/* Bytes of one logit as the head computes it: fp32, or 16-bit under autocast
 * and for 16-bit or quantized models (whose head computes in the 16-bit
 * dtype the script loads them with). */
static double logit_value_bytes(const oom_estimate_input *in)
{
    return in->precision == OOM_PREC_FP32 ? 4.0 : 2.0;
}

/* N: batch x sequence x vocabulary, for a language-model head; generate()
 * computes the last position's logits only (transformers' logits_to_keep). */
static double vocab_logit_values(const oom_estimate_input *in)
{
    if (in->image_bytes > 0 || !in->lm_head || in->vocab <= 0)
        return 0;
    double positions = in->generates && !in->training ? 1.0
                       : has_shorter_target(in)           ? (double)in->target_len /* the decoder's */
                                                          : (double)in->seq_len;
    return positions * (double)in->micro_batch * (double)in->vocab;
}

/* generate()'s KV cache: for every layer, a key and a value per position of
 * prompt and new tokens: b x (s + new) x L x 2 x kv_heads x head_dim, in the
 * compute dtype (16-bit but for fp32 models). */
static double kv_cache_bytes(const oom_estimate_input *in)
{
    if (in->training || !in->generates || in->image_bytes > 0 || in->layers <= 0 || in->heads <= 0)
        return 0;
    double kv = (double)(in->kv_heads > 0 ? in->kv_heads : in->heads);
    double d = in->head_dim > 0 ? (double)in->head_dim : (double)in->hidden / (double)in->heads;
    double positions = (double)(in->seq_len + (in->new_tokens > 0 ? in->new_tokens : 0));
    double bytes = in->precision == OOM_PREC_FP32 ? 4.0 : 2.0;
    return (double)in->micro_batch * positions * (double)in->layers * 2.0 * kv * d * bytes;
}

/* The language-model loss over N = batch x sequence x vocabulary values, as
 * eager PyTorch and Hugging Face's loss run it (docs/estimation.md §2 and §9:
 * Korthikanti's 4sbv is the fp32 copy alone):
 *   - the head's logits, in the compute dtype, alive until the step ends
 *     (the model's output holds them);
 *   - the loss's fp32 copy: the logits upcast for cross-entropy, whose
 *     log_softmax output is kept for backward;
 *   - in training, its backward: nll_loss's gradient (a dense fp32 tensor of
 *     the same shape) and log_softmax's gradient, alive together with the
 *     saved output before the gradient reaches the head.
 * So 16 bytes per value in fp32 training and 14 under autocast. The 14 is
 * what the Cut Cross-Entropy paper's baseline measured (Wijmans et al.,
 * 2024, Table 1: 28,000 MB for the loss and its gradient over 8,192 tokens
 * of Gemma 2's 256,000-word vocabulary in bf16, 14.0 bytes per value if MB
 * is MiB), as read in a third-party summary of the table. */
static double vocab_logit_bytes(const oom_estimate_input *in)
{
    double n = vocab_logit_values(in);
    /* A loss taken chunk by chunk in the logits' 16-bit dtype (litgpt's
     * chunked_cross_entropy, torchtune's CEWithChunkedOutputLoss) keeps one
     * 16-bit log_softmax output per value for backward, the logits
     * themselves being needed by no backward; its gradients live one chunk
     * at a time. litgpt's measured LoRA tables leave room for no more: a
     * second micro-batch adds what the layers keep and 0-2 bytes per value. */
    if (in->loss_16bit && logit_value_bytes(in) < 4)
        return logit_value_bytes(in) * n;
    double logits = logit_value_bytes(in) * n, loss_copy = 4.0 * n;
    if (!in->training)
        return logits + loss_copy;
    return logits + loss_copy + 2 * 4.0 * n;
}

static double logit_bytes(const oom_estimate_input *in)
{
    if (in->image_bytes > 0) /* fp32 logits over the classes, and their gradient */
        return 4.0 * (double)in->micro_batch * (double)in->classes * (in->training ? 2 : 1);
    return vocab_logit_bytes(in);
}

/* The largest 4-bit weight as MatMul4Bit runs it: forward computes
 * F.linear(A, dequantize_4bit(B).to(A.dtype).t()) and backward the same
 * product for A's gradient (bitsandbytes/autograd/_functions.py, 0.41.1
 * lines 516 and 547, 0.43.3 line 509), so the whole weight lives in the
 * dtype it was quantised from (dequantize_4bit allocates it in the quant
 * state's dtype: functional.py, 0.41.1 line 908) and, when the compute dtype
 * differs, in that one too, until the product is done. Fabric's plugin
 * quantises from torch.half (fabric/plugins/precision/bitsandbytes.py,
 * lightning 2.1, _quantize_weight) and litgpt computes in bf16: 2 + 2 bytes
 * per weight. One input row without grad takes gemv_4bit instead, which
 * dequantises nothing (matmul_4bit, 0.41.1 line 568): a generation step
 * after the prompt. `head`: the LM head (if it is quantised); otherwise the
 * largest linear of a block (the MLP's h x intermediate). */
static double dequant_weight_bytes(const oom_estimate_input *in, bool head)
{
    if (in->precision != OOM_PREC_NF4 || in->hidden <= 0 || in->image_bytes > 0 || in->module_defined)
        return 0;
    if (!in->training && in->micro_batch * in->seq_len <= 1)
        return 0;
    double h = (double)in->hidden, per_weight = 2.0 + in->dequant_cast_bytes;
    if (head)
        return in->head_quantized && in->lm_head && in->vocab > 0 ? (double)in->vocab * h * per_weight : 0;
    /* an fp32-stream layer peaks at the product's backward, when no weight
     * is dequantised (MatMul4Bit frees it with its own backward) */
    if (fp32_stream_layer(in))
        return 0;
    double mlp = (double)(in->intermediate > 0 ? in->intermediate : 4 * in->hidden);
    return (mlp > h ? mlp : h) * h * per_weight;
}

/* The optimizer step's own allocations: PyTorch 2's foreach AdamW (the
 * default on CUDA) computes sqrt(v) for every parameter at once, a copy of
 * one state (torch/optim/adamw.py, _multi_tensor_adamw: exp_avg_sq_sqrt).
 * The fused kernel and the per-parameter loop before 2.0 keep at most one
 * parameter's worth. */
/* PyTorch before 1.13 (eager module loading) is before 2.0 too. */
static bool before_torch2(const oom_estimate_input *in)
{
    return in->pre_torch2 || in->eager_module_loading;
}

static double step_temporary_bytes(const oom_estimate_input *in)
{
    if (!in->training || before_torch2(in) || in->fused_optimizer || in->optimizer != OOM_OPT_ADAMW)
        return 0;
    return trainable_value_bytes(in) * (double)in->trainable;
}

void oom_estimate_compute(const oom_estimate_input *in, oom_estimate *out)
{
    int nd = in->num_gpus > 0 ? in->num_gpus : 1;
    out->context = in->eager_module_loading ? OOM_CUDA_CONTEXT_BYTES : OOM_CUDA_CONTEXT_LAZY_BYTES;
    out->weights = weight_bytes(in);
    out->gradients = gradient_bytes(in);
    out->optimizer = optimizer_bytes(in);
    if (in->zero_stage >= 1)
        out->optimizer /= nd;
    if (in->zero_stage >= 2)
        out->gradients /= nd;
    if (in->zero_stage >= 3)
        out->weights /= nd;
    if (in->offload_optimizer)
        out->optimizer = 0;
    out->activations = in->image_bytes > 0    ? image_activation_bytes(in)
                       : in->module_defined ? module_activation_bytes(in)
                                            : activation_bytes(in);
    out->logits = logit_bytes(in);
    out->logit_values = vocab_logit_values(in);
    out->step_temp = step_temporary_bytes(in);
    if (in->zero_stage >= 1) /* each rank steps its own shard */
        out->step_temp /= nd;
    if (in->offload_optimizer)
        out->step_temp = 0;
    /* The peak is the larger of two moments, not their sum: with PyTorch 2's
     * zero_grad(set_to_none=True) the gradients of the last step are gone
     * while the next forward builds its activations, and the activations are
     * freed before the optimizer step allocates its temporaries. Before 2.0
     * the gradients stayed (zeroed) through the forward pass. */
    double states = out->weights + out->optimizer;
    /* Checkpointed, the loss's tensors are freed before backward recomputes
     * the first layer: the checkpoints plus the larger of the two */
    double acts = out->activations, logits = out->logits;
    double kept = checkpoint_bytes(in);
    /* A 4-bit weight dequantised while its layer runs: the head's beside the
     * loss's tensors, a block's beside the activations */
    double head_dq = dequant_weight_bytes(in, true), block_dq = dequant_weight_bytes(in, false);
    double dq = head_dq > block_dq ? head_dq : block_dq;
    if (kept > 0) {
        double layer = out->activations - kept;
        if (layer + block_dq > logits + head_dq) {
            logits = 0;
            dq = block_dq;
        } else {
            acts = kept;
            dq = head_dq;
        }
    }
    out->dequant = dq;
    double grads = before_torch2(in) ? out->gradients : 0;
    /* generate()'s keys and values live through the forward pass (inference
     * only: a training step has no cache) */
    out->kv_cache = kv_cache_bytes(in);
    out->forward_backward = states + acts + logits + grads + out->kv_cache + out->dequant;
    out->step = in->training ? states + out->gradients + out->step_temp : 0;
    out->step_is_peak = out->step > out->forward_backward;
    out->peak_gradients = out->step_is_peak ? out->gradients : grads;
    out->peak_activations = out->step_is_peak ? 0 : acts;
    out->peak_logits = out->step_is_peak ? 0 : logits;
    out->peak_step_temp = out->step_is_peak ? out->step_temp : 0;
    out->peak_dequant = out->step_is_peak ? 0 : out->dequant;
    double live = out->step_is_peak ? out->step : out->forward_backward;
    /* A model that does not train allocates its weights once, at load, and
     * keeps them: the cache's churn is what each step allocates and frees
     * (activations, logits, the KV cache that generate() grows) */
    double churn = in->training ? live : live - out->weights;
    out->slack = OOM_ALLOCATOR_SLACK * churn;
    out->total = out->context + live + out->slack;
}

bool oom_torch_before(const char *version, int want_major, int want_minor, bool *ok)
{
    int major = -1, minor = -1;
    char rest = 0;
    int n = version ? sscanf(version, "%d.%d%c", &major, &minor, &rest) : 0;
    *ok = n >= 2 && major >= 0 && minor >= 0 && (n == 2 || rest == '.' || rest == '+' || rest == 'a' ||
                                                   rest == 'b' || rest == 'r' || rest == 'd');
    if (!*ok)
        return false;
    return major < want_major || (major == want_major && minor < want_minor);
}

bool oom_torch_loads_eagerly(const char *version, bool *ok)
{
    return oom_torch_before(version, 1, 13, ok);
}
