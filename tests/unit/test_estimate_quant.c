/* bitsandbytes' 4-bit layers under autograd (docs/estimation.md §12.6):
 * the weight MatMul4Bit dequantises while a layer runs, and the inputs it
 * kept for backward before bitsandbytes 0.43.2. Every expected value is
 * worked out by hand from the model's config in the comment beside it. */
#include <math.h>
#include <string.h>

#include "harness.h"
#include "oomlint/estimate.h"

static oom_kb kb;

static bool near(double got, double want, double tolerance)
{
    bool ok = fabs(got - want) <= tolerance * fabs(want);
    if (!ok)
        printf("  got %.10g, want %.10g\n", got, want);
    return ok;
}

static oom_estimate_input nf4_input(const char *id)
{
    oom_script_inputs s;
    oom_script_inputs_init(&s);
    CHECK(oom_script_inputs_use_model(&s, &kb, id, NULL));
    s.in.num_gpus = 1;
    s.in.precision = OOM_PREC_NF4;
    s.in.memory_efficient_attention = true;
    return s.in;
}

/* litgpt's generate/base.py with --quantize bnb.nf4: Fabric quantises from
 * fp16, litgpt computes in bf16, so the 4-bit LM head is dequantised to
 * fp16 and cast to bf16 while the prompt goes through it: Llama-2-7B's
 * 32,000 x 4,096 head at 2 + 2 bytes = 524,288,000 B. */
static void dequantised_head_during_the_prompt(void)
{
    oom_estimate_input in = nf4_input("meta-llama/Llama-2-7b-hf");
    in.training = false;
    in.micro_batch = 1;
    in.seq_len = 6;
    in.head_quantized = true;
    in.dequant_cast_bytes = 2;
    oom_estimate e;
    oom_estimate_compute(&in, &e);
    CHECK(e.dequant == 524288000.0);
    CHECK(e.peak_dequant == e.dequant);
    CHECK(near(e.forward_backward, e.weights + e.activations + e.logits + e.kv_cache + 524288000.0, 1e-12));
    /* the parts alive at the peak still add up to the total */
    CHECK(near(e.context + e.weights + e.optimizer + e.peak_gradients + e.peak_step_temp + e.peak_activations +
                   e.peak_logits + e.kv_cache + e.peak_dequant + e.slack,
               e.total, 1e-12));
    /* no cast (computed in the dtype it was quantised from): 2 bytes */
    in.dequant_cast_bytes = 0;
    oom_estimate_compute(&in, &e);
    CHECK(e.dequant == 262144000.0);
    /* one token without grad takes gemv_4bit: nothing dequantised */
    in.seq_len = 1;
    oom_estimate_compute(&in, &e);
    CHECK(e.dequant == 0);
    /* a head left in 16 bits (transformers skips lm_head): the largest block
     * linear, 11,008 x 4,096 at 2 bytes = 90,177,536 B */
    in.seq_len = 6;
    in.head_quantized = false;
    oom_estimate_compute(&in, &e);
    CHECK(e.dequant == 90177536.0);
    /* 16-bit weights dequantise nothing */
    in.precision = OOM_PREC_PURE_BF16;
    oom_estimate_compute(&in, &e);
    CHECK(e.dequant == 0 && e.peak_dequant == 0);
}

/* litgpt's finetune/lora.py with bnb.nf4 on bitsandbytes 0.41.1: LoRA r=8
 * on query and value with dropout, 1 x 1304 tokens. MatMul4Bit keeps the
 * inputs of every 4-bit layer a frozen 16-bit layer would not: per layer
 * the attention's input (h), the MLP's input (h) and the down projection's
 * (11,008): 2 x (4,096 + 4,096 + 11,008) = 38,400 B per token, x 32 layers
 * x 1,304 tokens = 1,602,355,200 B; plus the 4-bit head's input, 2 x 4,096
 * x 1,304 = 10,682,368 B. */
static void kept_inputs_of_a_llama_layer(void)
{
    oom_estimate_input in = nf4_input("meta-llama/Llama-2-7b-hf");
    in.training = true;
    in.micro_batch = 1;
    in.seq_len = 1304;
    in.trainable = 4194304;
    in.adapter_bytes = 2;
    in.lora_dropout_modules = 1;
    in.head_quantized = true;
    in.loss_16bit = true;
    oom_estimate current, old;
    oom_estimate_compute(&in, &current);
    in.bnb_keeps_inputs = true;
    oom_estimate_compute(&in, &old);
    CHECK(old.activations - current.activations == 1602355200.0 + 10682368.0);
    /* no dropout on q, k, v, o: their LoRA branches keep the attention's
     * input and output anyway; the MLP's input and the down projection's
     * are left: 2 x (4,096 + 11,008) x 32 x 1,304 = 1,260,519,424 B */
    in.lora_dropout_modules = 0;
    in.lora_kept_inputs = OOM_LORA_KEEPS_ATTN_INPUT | OOM_LORA_KEEPS_OUT_INPUT;
    in.head_quantized = false;
    oom_estimate_compute(&in, &old);
    in.bnb_keeps_inputs = false;
    oom_estimate_compute(&in, &current);
    CHECK(old.activations - current.activations == 1260519424.0);
    /* eager attention: the output projection's input is a copy nothing else
     * keeps, unless o_proj's LoRA branch does: + 2 x 4,096 x 32 x 1,304 */
    in.memory_efficient_attention = false;
    in.lora_kept_inputs = OOM_LORA_KEEPS_ATTN_INPUT;
    oom_estimate_compute(&in, &current);
    in.bnb_keeps_inputs = true;
    oom_estimate_compute(&in, &old);
    CHECK(old.activations - current.activations == 1260519424.0 + 341835776.0);
    /* checkpointed: only the layer recomputed keeps them,
     * 2 x (4,096 + 4,096 + 11,008) x 1,304 = 50,073,600 B */
    in.memory_efficient_attention = true;
    in.lora_kept_inputs = 0;
    in.gradient_checkpointing = true;
    oom_estimate_compute(&in, &old);
    in.bnb_keeps_inputs = false;
    oom_estimate_compute(&in, &current);
    CHECK(old.activations - current.activations == 50073600.0);
}

/* phi-1.5 (HF PhiDecoderLayer, litgpt shared_attention_norm): one norm
 * feeds attention and MLP, so the 4-bit layers keep that output once and
 * the GeLU's output (8,192): 2 x (2,048 + 8,192) x 24 layers x 1,044 tokens
 * = 513,146,880 B. */
static void kept_inputs_with_a_shared_norm(void)
{
    oom_estimate_input in = nf4_input("microsoft/phi-1_5");
    CHECK(in.shared_block_norm);
    in.training = true;
    in.micro_batch = 1;
    in.seq_len = 1044;
    in.trainable = 1572864;
    in.lora_dropout_modules = 1;
    oom_estimate current, old;
    oom_estimate_compute(&in, &current);
    in.bnb_keeps_inputs = true;
    oom_estimate_compute(&in, &old);
    CHECK(old.activations - current.activations == 513146880.0);
    /* inference keeps nothing for backward */
    in.training = false;
    oom_estimate_compute(&in, &old);
    in.bnb_keeps_inputs = false;
    oom_estimate_compute(&in, &current);
    CHECK(old.activations == current.activations);
}

/* Which layer input each LoRA target reads. */
static void lora_target_inputs(void)
{
    CHECK(oom_estimate_lora_input_of("q_proj") == OOM_LORA_KEEPS_ATTN_INPUT);
    CHECK(oom_estimate_lora_input_of("value") == OOM_LORA_KEEPS_ATTN_INPUT);
    CHECK(oom_estimate_lora_input_of("c_attn") == OOM_LORA_KEEPS_ATTN_INPUT);
    CHECK(oom_estimate_lora_input_of("o_proj") == OOM_LORA_KEEPS_OUT_INPUT);
    CHECK(oom_estimate_lora_input_of("up_proj") == OOM_LORA_KEEPS_MLP_INPUT);
    CHECK(oom_estimate_lora_input_of("down_proj") == OOM_LORA_KEEPS_DOWN_INPUT);
    CHECK(oom_estimate_lora_input_of("all-linear") == OOM_LORA_KEEPS_ALL);
    CHECK(oom_estimate_lora_input_of("lm_head") == 0);
}

/* The script reader: a LoraConfig without dropout keeps its targets'
 * inputs; with dropout it keeps a dropped-out copy instead. */
static void script_lora_kept_inputs(void)
{
    static const char head[] = "import torch\n"
                               "from transformers import AutoModelForCausalLM, BitsAndBytesConfig, Trainer\n"
                               "from peft import LoraConfig, get_peft_model\n"
                               "bnb = BitsAndBytesConfig(load_in_4bit=True)\n"
                               "model = AutoModelForCausalLM.from_pretrained(\"meta-llama/Llama-2-7b-hf\", "
                               "quantization_config=bnb)\n";
    char text[1024];
    oom_script_inputs s;
    snprintf(text, sizeof text,
             "%smodel = get_peft_model(model, LoraConfig(r=8, lora_dropout=0.0, "
             "target_modules=[\"q_proj\", \"v_proj\", \"down_proj\"]))\nTrainer(model=model).train()\n",
             head);
    oom_test_read_script(&kb, text, &s);
    CHECK(s.in.precision == OOM_PREC_NF4);
    CHECK(s.in.lora_kept_inputs == (OOM_LORA_KEEPS_ATTN_INPUT | OOM_LORA_KEEPS_DOWN_INPUT));
    CHECK(!s.in.bnb_keeps_inputs); /* current bitsandbytes unless told otherwise */
    snprintf(text, sizeof text,
             "%smodel = get_peft_model(model, LoraConfig(r=8, lora_dropout=0.05, "
             "target_modules=[\"q_proj\", \"v_proj\"]))\nTrainer(model=model).train()\n",
             head);
    oom_test_read_script(&kb, text, &s);
    CHECK(s.in.lora_kept_inputs == 0 && s.in.lora_dropout_modules == 2);
}

/* fms-acceleration's baseline QLoRA of Mistral-7B (h 4,096, 8 of 32 K/V
 * heads: kv = 0.25; intermediate 14,336: m = 3.5; 32 layers) at 4 x 4,096
 * tokens, checkpointed, under fp16 autocast, after peft's
 * prepare_model_for_kbit_training: the residual stream and every 4-bit
 * layer fed by a norm run in fp32. Per token and hidden unit the
 * recomputed layer keeps its input or output 4, FlashAttention's q, k, v
 * and output 2 + 4 x 0.25 + 2 = 5, the second norm's input 4, gate, SiLU
 * and up outputs 12 x 3.5 = 42 (55); on bitsandbytes 0.43.1 MatMul4Bit
 * keeps its fp32 inputs too, attention 4, MLP 4, product 14 (77); the
 * q, k, v LoRA branches each keep a 16-bit cast of their fp32 input, 3 x 2
 * (83); the product's backward adds 4 + 12 x 3.5 = 46: 129. With the 32
 * fp32 checkpoints (128): 257 x 16,384 x 4,096 = 17,246,978,048 B, and the
 * layer (129 x 67,108,864 = 8,657,043,456 B) outgrows the loss (14 x
 * 16,384 x 32,000 = 7,340,032,000 B), so the peak is the layer's. */
static oom_estimate_input fms_qlora_input(void)
{
    oom_estimate_input in = nf4_input("mistralai/Mistral-7B-v0.1");
    CHECK(in.hidden == 4096 && in.kv_heads == 8 && in.heads == 32 && in.intermediate == 14336);
    in.training = true;
    in.micro_batch = 4;
    in.seq_len = 4096;
    in.trainable = 13631488;
    in.gradient_checkpointing = true;
    in.unquantized_bytes = 4;
    in.autocast = true;
    in.lm_head = true;
    static const char *const targets[] = {"q_proj", "k_proj", "v_proj", "o_proj"};
    for (int i = 0; i < 4; i++)
        oom_estimate_count_lora_target(&in, targets[i]);
    in.lora_kept_inputs = OOM_LORA_KEEPS_ATTN_INPUT | OOM_LORA_KEEPS_OUT_INPUT;
    return in;
}

static void fp32_stream_layer_of_a_qlora_mistral(void)
{
    oom_estimate_input in = fms_qlora_input();
    CHECK(in.lora_targets_by_input[0] == 3 && in.lora_targets_by_input[1] == 1);
    CHECK(in.lora_targets_by_input[2] == 0 && in.lora_targets_by_input[3] == 0);
    in.bnb_keeps_inputs = true;
    oom_estimate e;
    oom_estimate_compute(&in, &e);
    CHECK(e.activations == 17246978048.0);
    CHECK(e.logits == 7340032000.0);
    CHECK(e.peak_activations == e.activations && e.peak_logits == 0);
    CHECK(e.dequant == 0); /* no weight dequantised at the product's backward */
    /* current bitsandbytes keeps none of the 22: 107 x 67,108,864 =
     * 7,180,648,448 B, under the loss, which is the peak then */
    in.bnb_keeps_inputs = false;
    oom_estimate_compute(&in, &e);
    CHECK(e.activations == 235.0 * 67108864.0);
    CHECK(e.peak_activations == 128.0 * 67108864.0 && e.peak_logits == 7340032000.0);
    /* without autocast the q, k, v branches keep the fp32 input itself (4,
     * not 3 x 2), and o_proj's casts its 16-bit input to the fp32 adapter
     * (4): 55 + 8 + 46 = 109 */
    in.autocast = false;
    oom_estimate_compute(&in, &e);
    CHECK(e.activations == (128.0 + 109.0) * 67108864.0);
    /* with dropout under autocast each branch keeps a mask and a 16-bit
     * dropped-out copy: 4 x (1 + 2) = 12; 55 + 12 + 46 = 113 */
    in.autocast = true;
    in.lora_dropout_modules = 4;
    in.lora_kept_inputs = 0;
    oom_estimate_compute(&in, &e);
    CHECK(e.activations == (128.0 + 113.0) * 67108864.0);
    /* not checkpointed: every layer keeps its 67, the backward's 46 once:
     * (32 x 67 + 46) x 67,108,864 */
    in.gradient_checkpointing = false;
    oom_estimate_compute(&in, &e);
    CHECK(e.activations == (32.0 * 67.0 + 46.0) * 67108864.0);
}

/* Norms left in 16 bits (no prepare_model_for_kbit_training): the 16-bit
 * layer of section 12.2, 10 + 4 x 0.25 + 2 + 2 x 0.25 + 4 + 8 x 3.5 = 45.5,
 * and 16-bit checkpoints, 32 x 2: (64 + 45.5) x 67,108,864 B. */
static void sixteen_bit_norms_keep_the_sixteen_bit_layer(void)
{
    oom_estimate_input in = fms_qlora_input();
    in.unquantized_bytes = 0;
    oom_estimate e;
    oom_estimate_compute(&in, &e);
    CHECK(e.activations == 109.5 * 67108864.0);
}

/* The script reader: bf16=True beside load_in_4bit still says autocast,
 * and the LoRA targets are counted by the input they read. */
static void script_autocast_and_lora_targets(void)
{
    static const char text[] =
        "from transformers import AutoModelForCausalLM, BitsAndBytesConfig, Trainer, TrainingArguments\n"
        "from peft import LoraConfig, get_peft_model, prepare_model_for_kbit_training\n"
        "bnb = BitsAndBytesConfig(load_in_4bit=True)\n"
        "model = AutoModelForCausalLM.from_pretrained(\"mistralai/Mistral-7B-v0.1\", quantization_config=bnb)\n"
        "model = prepare_model_for_kbit_training(model)\n"
        "model = get_peft_model(model, LoraConfig(r=16, target_modules=\"all-linear\"))\n"
        "Trainer(model=model, args=TrainingArguments(\"out\", bf16=True)).train()\n";
    oom_script_inputs s;
    oom_test_read_script(&kb, text, &s);
    CHECK(s.in.precision == OOM_PREC_NF4);
    CHECK(s.in.autocast);
    CHECK(s.in.unquantized_bytes == 4);
    CHECK(s.in.lora_targets_by_input[0] == 3 && s.in.lora_targets_by_input[1] == 1);
    CHECK(s.in.lora_targets_by_input[2] == 2 && s.in.lora_targets_by_input[3] == 1);
}

void test_estimate_quant_suite(void)
{
    oom_buf err;
    oom_buf_init(&err);
    CHECK(oom_kb_load_embedded(&kb, &err) == 0);
    oom_buf_free(&err);
    oom_test_run("estimate: a 4-bit head dequantised and cast while the prompt runs (litgpt, Llama-2-7B)",
                 dequantised_head_during_the_prompt);
    oom_test_run("estimate: 4-bit layers' inputs kept before bitsandbytes 0.43.2 (Llama-2-7B)",
                 kept_inputs_of_a_llama_layer);
    oom_test_run("estimate: one shared norm's output kept once (phi-1.5)", kept_inputs_with_a_shared_norm);
    oom_test_run("estimate: the layer input each LoRA target reads", lora_target_inputs);
    oom_test_run("estimate: a LoraConfig's dropout decides which inputs its branches keep",
                 script_lora_kept_inputs);
    oom_test_run("estimate: a QLoRA layer around peft's fp32 norms, tensor by tensor (Mistral-7B)",
                 fp32_stream_layer_of_a_qlora_mistral);
    oom_test_run("estimate: 16-bit norms keep the 16-bit layer", sixteen_bit_norms_keep_the_sixteen_bit_layer);
    oom_test_run("estimate: autocast beside a 4-bit load, LoRA targets by input", script_autocast_and_lora_targets);
    oom_kb_free(&kb);
}
