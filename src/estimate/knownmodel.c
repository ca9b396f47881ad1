/* estimate/knownmodel: a model the knowledge base knows, into the inputs:
 * its parameters, shape, the head its checkpoint comes with, and the
 * smaller models of its family for the fix plan. */
#include <stdio.h>
#include <string.h>

#include "internal.h"

void oom_est_use_image_model(oom_script_inputs *s, const oom_model *m)
{
    const oom_vision_profile *v = &m->vision;
    oom_estimate_input *in = &s->in;
    in->image_bytes = in->image_bytes_amp = in->image_bytes_frozen = in->buffer_bytes = 0;
    in->image_ref = in->patch = in->classes = 0;
    in->frozen_backbone = false;
    if (v->resolution <= 0)
        return;
    in->image_bytes = v->saved_fp32;
    /* CNNs: the autocast figure measured on the CPU (convolutions 16-bit,
     * BatchNorm and ReLU following their input, as CUDA autocast does). ViT:
     * CUDA autocast keeps softmax and LayerNorm outputs in fp32, which 1.13's
     * CPU autocast does not, so its CPU figure is too low; use the
     * transformer factor HF measured on a GPU (0.81, docs/estimation.md §9). */
    in->image_bytes_amp = v->patch_size > 0 ? 0.81 * v->saved_fp32 : v->saved_autocast;
    /* frozen: the head's saved input, or the forward pass's working set */
    in->image_bytes_frozen = v->forward_peak > v->saved_frozen ? v->forward_peak : v->saved_frozen;
    in->image_ref = v->resolution;
    in->patch = v->patch_size;
    in->classes = v->classes;
    in->buffer_bytes = (double)v->buffer_bytes;
    in->hidden = v->patch_size > 0 ? m->config.hidden_size : 0;
    in->heads = v->patch_size > 0 ? m->config.num_attention_heads : 0;
    in->layers = v->patch_size > 0 ? m->config.num_hidden_layers : 0;
    in->vocab = 0;
    in->lm_head = false;
    in->gradient_checkpointing = false;
    if (s->from[OOM_IN_IMAGE].assumed) {
        in->image_h = in->image_w = 0;
        snprintf(s->from[OOM_IN_IMAGE].text, sizeof s->from[0].text,
                 "%lldx%lld (the size the activations were measured at)", v->resolution, v->resolution);
    }
    /* the Trainer's defaults and names do not apply to a torchvision script */
    if (s->from[OOM_IN_BATCH].assumed) {
        snprintf(s->from[OOM_IN_BATCH].text, sizeof s->from[0].text, "batch %lld (no batch size found)",
                 in->micro_batch);
        snprintf(s->batch_name, sizeof s->batch_name, "batch_size");
    }
    if (s->from[OOM_IN_OPTIMIZER].assumed)
        snprintf(s->from[OOM_IN_OPTIMIZER].text, sizeof s->from[0].text, "AdamW (no optimizer found)");
}

/* The knowledge base's word for the head the checkpoint comes with, where
 * neither the script nor --task has named one. */
static void use_model_task(oom_script_inputs *s, const oom_model *m)
{
    oom_task t;
    if (s->task_named)
        return;
    if (!m->task[0] || !oom_task_from_id(m->task, &t)) {
        oom_script_inputs_set_task(s, OOM_TASK_UNKNOWN, NULL);
        oom_est_assume(s, OOM_IN_TASK, "no language-model head found: no vocabulary logits");
        return;
    }
    char why[160];
    snprintf(why, sizeof why, "%s is a %s checkpoint (knowledge base)", m->id, m->task);
    oom_script_inputs_set_task(s, t, why);
}

/* Families whose MLP is SwiGLU (gate, up, down) without dropout: their
 * layers keep what the intermediate width says, not a GPT layer's 4h. */
static bool gated_mlp_family(const char *model_type)
{
    static const char *const types[] = {"llama", "mistral", "qwen2", "qwen3", "gemma",
                                        "gemma2", "gemma3_text", "phi3", "olmo", "olmo2", "granite", "cohere", NULL};
    for (int i = 0; types[i]; i++)
        if (strcmp(model_type, types[i]) == 0)
            return true;
    return false;
}

/* Families whose attention and MLP read the output of one shared norm
 * (HF PhiDecoderLayer and GPTJBlock: one input_layernorm, parallel
 * attention and MLP): one input tensor for both, where a 4-bit layer keeps it. */
static bool shared_block_norm_family(const char *model_type)
{
    return strcmp(model_type, "phi") == 0 || strcmp(model_type, "gptj") == 0 || strcmp(model_type, "codegen") == 0;
}

/* The widths the activations and a quantised model's unquantised part
 * depend on: MLP width, K/V heads, whether the head is tied. */
static void use_model_shape(oom_script_inputs *s, const oom_model *m)
{
    s->in.shared_block_norm = shared_block_norm_family(m->config.model_type);
    s->in.intermediate = m->config.intermediate_size > 0 ? m->config.intermediate_size : 0;
    s->in.kv_heads = m->config.num_key_value_heads > 0 ? m->config.num_key_value_heads : 0;
    s->in.gated_mlp = gated_mlp_family(m->config.model_type);
    s->in.tied_embeddings = m->config.tie_word_embeddings == 1;
}

/* The smaller checkpoints of m's family, for the fix plan's last step. */
static void list_smaller_models(oom_script_inputs *s, const oom_kb *kb, const oom_model *m)
{
    const oom_model *found[OOM_SMALLER_MODELS];
    s->smaller_count = oom_kb_smaller_in_family(kb, m, found, OOM_SMALLER_MODELS);
    for (size_t i = 0; i < s->smaller_count; i++) {
        const oom_model_config *c = &found[i]->config;
        oom_smaller_model *o = &s->smaller[i];
        oom_est_copy(o->id, sizeof o->id, found[i]->id);
        o->params = oom_kb_model_params(found[i]);
        o->hidden = c->hidden_size;
        o->layers = c->num_hidden_layers + (c->num_decoder_layers > 0 ? c->num_decoder_layers : 0);
        o->heads = c->num_attention_heads;
        o->vocab = c->vocab_size;
        o->kv_heads = c->num_key_value_heads > 0 ? c->num_key_value_heads : 0;
        o->head_dim = c->head_dim > 0 ? c->head_dim : 0;
        o->intermediate = c->intermediate_size > 0 ? c->intermediate_size : 0;
        o->tied_embeddings = c->tie_word_embeddings == 1;
    }
}

bool oom_script_inputs_use_model(oom_script_inputs *s, const oom_kb *kb, const char *id, const char *why)
{
    const oom_model *m = oom_kb_find_model(kb, id);
    if (!m)
        return false;
    long long params = oom_kb_model_params(m);
    if (params <= 0)
        return false;
    s->in.params = params;
    s->in.trainable = params;
    s->smaller_count = 0;
    oom_est_use_image_model(s, m); /* or clears the image fields of another model */
    if (m->vision.resolution > 0) {
        snprintf(s->model_id, sizeof s->model_id, "%s", m->id);
        s->model_known = true;
        if (why)
            snprintf(s->from[OOM_IN_MODEL].text, sizeof s->from[OOM_IN_MODEL].text, "%s", why);
        return true;
    }
    s->in.hidden = m->config.hidden_size;
    s->in.layers = m->config.num_hidden_layers + (m->config.num_decoder_layers > 0 ? m->config.num_decoder_layers : 0);
    s->in.decoder_layers = m->config.num_decoder_layers > 0 ? m->config.num_decoder_layers : 0;
    s->in.heads = m->config.num_attention_heads;
    s->in.vocab = m->config.vocab_size;
    use_model_shape(s, m);
    s->in.head_dim = m->config.head_dim > 0 ? m->config.head_dim : 0;
    snprintf(s->model_id, sizeof s->model_id, "%s", m->id);
    s->model_known = true;
    use_model_task(s, m);
    list_smaller_models(s, kb, m);
    if (why)
        snprintf(s->from[OOM_IN_MODEL].text, sizeof s->from[OOM_IN_MODEL].text, "%s", why);
    return true;
}
