/* Precision part by part, the peak as the larger phase, and LoRA's real
 * widths, against the measured peaks of tests/estimate/measured.json and
 * the counts peft prints. */
#include <math.h>
#include <string.h>

#include "harness.h"
#include "oomlint/estimate.h"

static oom_kb kb;

static bool near(double got, double want, double tolerance)
{
    bool ok = fabs(got - want) <= tolerance * fabs(want);
    if (!ok)
        printf("  got %.6g, want %.6g (within %.1f%%)\n", got, want, 100 * tolerance);
    return ok;
}

static oom_estimate_input model_input(const char *id)
{
    oom_script_inputs s;
    oom_script_inputs_init(&s);
    CHECK(oom_script_inputs_use_model(&s, &kb, id, NULL));
    s.in.training = true;
    s.in.num_gpus = 1;
    return s.in;
}

/* A 4-bit base: bitsandbytes quantises the linear layers (0.5 byte, plus
 * an fp32 absmax per 64 weights, or with double quantisation an 8-bit one
 * and an fp32 per 256 blocks); embeddings and head stay in the 16-bit
 * dtype, or fp32 after prepare_model_for_kbit_training. */
static void four_bit_weights_part_by_part(void)
{
    oom_estimate_input in = model_input("meta-llama/Llama-2-7b-hf");
    in.training = false;
    in.precision = OOM_PREC_NF4;
    double tables = 2.0 * 32000 * 4096, quantised = 6738415616.0 - tables;
    oom_estimate e;
    oom_estimate_compute(&in, &e);
    CHECK(near(e.weights, quantised * (0.5 + 4.0 / 64) + tables * 2, 1e-9));
    in.double_quant = true;
    oom_estimate_compute(&in, &e);
    CHECK(near(e.weights, quantised * (0.5 + 1.0 / 64 + 4.0 / (64 * 256)) + tables * 2, 1e-9));
    in.unquantized_bytes = 4;
    oom_estimate_compute(&in, &e);
    CHECK(near(e.weights, quantised * (0.5 + 1.0 / 64 + 4.0 / (64 * 256)) + tables * 4, 1e-9));
    /* never the 6 bytes per parameter of fp32 weights under autocast */
    CHECK(e.weights < 0.7 * 6738415616.0);
}

/* fms-acceleration's reference run (refs/a100_80gb.csv, rows 0 and 2):
 * Mistral-7B, fp16 weights, AdamW, checkpointing, 4096 tokens; the peak
 * allocated is 72,971,724,288 B at batch 4 and 72,972,117,504 B at batch 8:
 * the optimizer step sets it, not the activations. */
static void full_finetune_peak_is_the_step(void)
{
    oom_estimate_input in = model_input("mistralai/Mistral-7B-v0.1");
    in.precision = OOM_PREC_PURE_BF16;
    in.gradient_checkpointing = true;
    in.memory_efficient_attention = true;
    in.seq_len = 4096;
    oom_estimate four, eight;
    in.micro_batch = 4;
    oom_estimate_compute(&in, &four);
    in.micro_batch = 8;
    oom_estimate_compute(&in, &eight);
    CHECK(four.step_is_peak && eight.step_is_peak);
    CHECK(four.total == eight.total);
    CHECK(near(four.total - four.context - four.slack, 72971724288.0, 0.02));
    /* the parts alive at the peak add up to the total */
    double parts = four.context + four.weights + four.peak_gradients + four.optimizer + four.peak_step_temp +
                   four.peak_activations + four.peak_logits + four.slack;
    CHECK(near(parts, four.total, 1e-12));
    /* before PyTorch 2.0 the gradients stayed through the forward pass and
     * no foreach temporaries: the sum of the parts */
    in.pre_torch2 = true;
    oom_estimate old;
    oom_estimate_compute(&in, &old);
    CHECK(!old.step_is_peak && old.step_temp == 0);
    CHECK(near(old.total - old.context - old.slack,
               old.weights + old.gradients + old.optimizer + old.peak_activations + old.peak_logits, 1e-12));
}

/* The same run's LoRA rows (12 and 14): r=16 on q, k, v, o, fp32 adapters,
 * 26,108,963,328 B at batch 4 and 37,098,695,168 B at batch 8. */
static void lora_on_a_16bit_model(void)
{
    oom_estimate_input in = model_input("mistralai/Mistral-7B-v0.1");
    in.precision = OOM_PREC_PURE_BF16;
    in.gradient_checkpointing = true;
    in.memory_efficient_attention = true;
    in.seq_len = 4096;
    long long per_layer = 0;
    static const char *const targets[] = {"q_proj", "k_proj", "v_proj", "o_proj"};
    for (int i = 0; i < 4; i++)
        per_layer += oom_estimate_lora_features(&in, targets[i]);
    in.trainable = 32 * 16 * per_layer;
    CHECK(in.trainable == 13631488); /* 32 x 16 x (8192 + 5120 + 5120 + 8192) */
    oom_estimate e;
    in.micro_batch = 4;
    oom_estimate_compute(&in, &e);
    CHECK(near(e.total - e.context - e.slack, 26108963328.0, 0.03));
    CHECK(near(e.gradients, 4.0 * 13631488, 1e-12)); /* peft's adapters are fp32 */
    in.micro_batch = 8;
    oom_estimate_compute(&in, &e);
    CHECK(near(e.total - e.context - e.slack, 37098695168.0, 0.03));
}

/* peft's print_trainable_parameters for Llama-2-7b with r=16 on every
 * linear layer: "trainable params: 39,976,960". */
static void lora_all_linear_widths(void)
{
    oom_estimate_input in = model_input("meta-llama/Llama-2-7b-hf");
    CHECK(32 * 16 * oom_estimate_lora_all_linear_features(&in) == 39976960);
    CHECK(oom_estimate_lora_features(&in, "gate_proj") == 4096 + 11008);
    CHECK(oom_estimate_lora_features(&in, "no_such_layer") == 0);
}

/* A QLoRA script: the 4-bit load decides the base weights whatever bf16=True
 * says, double quantisation and prepare_model_for_kbit_training are read,
 * and LoRA's targets count with their real widths and dropout. */
static void qlora_script_composes(void)
{
    oom_script_inputs s;
    oom_test_read_script(&kb,
                         "import torch\n"
                         "from transformers import AutoModelForCausalLM, BitsAndBytesConfig, Trainer, TrainingArguments\n"
                         "from peft import LoraConfig, get_peft_model, prepare_model_for_kbit_training\n"
                         "bnb = BitsAndBytesConfig(load_in_4bit=True, bnb_4bit_quant_type=\"nf4\",\n"
                         "                         bnb_4bit_use_double_quant=True, bnb_4bit_compute_dtype=torch.bfloat16)\n"
                         "model = AutoModelForCausalLM.from_pretrained(\"meta-llama/Llama-2-7b-hf\", quantization_config=bnb)\n"
                         "model = prepare_model_for_kbit_training(model)\n"
                         "model = get_peft_model(model, LoraConfig(r=16, lora_dropout=0.05,\n"
                         "    target_modules=[\"q_proj\", \"k_proj\", \"v_proj\", \"o_proj\", \"gate_proj\", \"up_proj\", \"down_proj\"]))\n"
                         "args = TrainingArguments(output_dir=\"o\", per_device_train_batch_size=4, bf16=True)\n"
                         "Trainer(model=model, args=args, train_dataset=ds).train()\n",
                         &s);
    CHECK(s.in.precision == OOM_PREC_NF4);
    CHECK(s.in.double_quant);
    CHECK(s.in.unquantized_bytes == 4);
    CHECK(s.in.trainable == 39976960);
    CHECK(s.in.lora_dropout_modules == 7);
    oom_estimate e;
    oom_estimate_compute(&s.in, &e);
    CHECK(e.weights < 4.5 * OOM_GIB);
}

void test_estimate_precision_suite(void)
{
    oom_buf err;
    oom_buf_init(&err);
    CHECK(oom_kb_load_embedded(&kb, &err) == 0);
    oom_buf_free(&err);
    oom_test_run("estimate: 4-bit weights part by part (NF4 blocks, double quantisation, 16/32-bit tables)",
                 four_bit_weights_part_by_part);
    oom_test_run("estimate: a full fine-tune's peak is the optimizer step (fms-acceleration, Mistral-7B)",
                 full_finetune_peak_is_the_step);
    oom_test_run("estimate: LoRA on a 16-bit model (fms-acceleration, Mistral-7B)", lora_on_a_16bit_model);
    oom_test_run("estimate: LoRA targets with their real widths (peft's count for all-linear)",
                 lora_all_linear_widths);
    oom_test_run("estimate: a QLoRA script's parts compose", qlora_script_composes);
    oom_kb_free(&kb);
}
