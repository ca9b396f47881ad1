/* library: what libraries' functions and classes give and do, as data
 * (rules/kb/library.json, embedded in the binary): which calls construct a
 * module, which wrap one, which classes a module class derives from, which
 * methods only a module has. The semantic model's roles read it
 * (src/model/roles.c); no C code names the library functions it lists. */
#ifndef OOMLINT_LIBRARY_H
#define OOMLINT_LIBRARY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "oomlint/util.h"

/* A pattern over a qualified name: dot-separated segments, each a shell
 * pattern for one name (`*`, `?`, `[A-Z]`), or `**` for any number of
 * segments. */
typedef struct {
    char **segments;
    size_t count;
    uint64_t literal; /* bit i: segment i has no wildcard, so it is compared, not globbed */
} oom_qpattern;

typedef struct {
    oom_qpattern call;
    int argument;  /* the positional argument wrapped; -1 for none */
    char *keyword; /* its keyword; NULL for none */
    int element;   /* the element of the result that is the wrapper; -1: the whole result */
} oom_lib_wrapper;

typedef struct {
    char *method;          /* `prepare` */
    oom_qpattern receiver; /* the class of the object it is called on */
} oom_lib_method;

/* A framework's method that the framework calls with a module at a
 * parameter: `FairseqCriterion.forward(self, model, sample)`. */
typedef struct {
    oom_qpattern base; /* the framework class a method's class derives from */
    char *method;
    int position; /* the parameter's position after self */
} oom_lib_hook;

/* A space of a reinforcement-learning environment: a Box's shape, or a
 * Discrete space's n (rank 0). */
typedef struct {
    long long shape[4];
    int rank;
    long long n;
} oom_lib_space;

/* What `gym.make(id)` gives for one of the ids (environments.spaces). */
typedef struct {
    oom_strlist ids;
    oom_lib_space observation, action;
} oom_lib_environment;

typedef struct {
    oom_qpattern *not_modules, *constructors, *bases, *containers;
    size_t not_module_count, constructor_count, base_count, container_count;
    oom_qpattern *text_encoders; /* calls that make a tokenizer or processor (values.text_encoders) */
    size_t text_encoder_count;
    oom_lib_wrapper *wrappers;
    size_t wrapper_count;
    oom_lib_method *preparing; /* give their arguments back wrapped, in order */
    size_t preparing_count;
    oom_lib_hook *hooks;
    size_t hook_count;
    oom_strlist self_returning;    /* a module's methods that return the module */
    oom_strlist module_attributes; /* attributes of a wrapper that are the module it wraps */
    oom_strlist use_evidence;      /* methods only a module has */
    oom_strlist forward_methods;   /* a module's methods that run its forward */
    oom_strlist output_fields;     /* fields of what a model's forward returns (`.logits`) */
    oom_strlist text_methods;      /* methods whose result is text on any receiver (`.strip()`, `decode`) */
    oom_strlist placing_methods;   /* a module's methods that move it to a device (`cuda`, `to`) */
    oom_strlist host_methods;      /* a module's methods that move it to the host (`cpu`) */
    oom_strlist placing_keywords;  /* constructor keywords that build a module on a device (`device_map`) */
    oom_strlist default_device_functions; /* calls that change where new tensors are made */
    oom_strlist graph_leaving_methods;    /* methods giving numbers or a detached tensor (`item`, `detach`) */
    oom_strlist number_builtins;          /* builtins that turn a tensor into a number or text (`float`, `len`) */
    oom_strlist no_grad_functions, inference_mode_functions; /* the grad-mode switches, by qualified name */
    oom_strlist enable_grad_functions, set_grad_enabled_functions;
    oom_strlist collection_adding_methods; /* methods adding to a collection in place (`append`) */
    oom_strlist synthetic_tensor_functions; /* tensor factories (`torch.randn`): inputs made from sizes, not data */
    oom_strlist number_methods;             /* methods giving numbers, not a tensor (`item`, `tolist`) */
    oom_strlist output_builtins;            /* builtins writing a value out, keeping nothing (`print`) */
    oom_strlist casting_methods;            /* a tensor's methods changing its dtype only (`half`, `type_as`) */
    oom_strlist evaluation_step_methods;    /* a framework module's per-batch evaluation methods (`validation_step`) */
    oom_strlist host_tensor_factories;      /* factories making a tensor on the default device, the host (`torch.zeros`) */
    oom_strlist data_tensor_factories;      /* those of them taking data, scalar for a number (`torch.tensor`) */
    oom_strlist parameter_constructors;     /* what makes a module's parameter of a tensor (`nn.Parameter`) */
    oom_strlist differentiating_functions;  /* calls that differentiate inside a computation (`torch.autograd.grad`) */
    oom_strlist device_combining_functions; /* functions whose tensors must share a device (`torch.cat`) */
    oom_strlist device_combining_methods;   /* tensor methods whose argument must be on the receiver's device (`add`) */
    oom_strlist device_following_methods;   /* tensor methods putting it where another tensor is (`type_as`) */
    oom_strlist tensor_metadata;            /* what a tensor tells of itself, not a tensor (`shape`, `size`) */
    oom_strlist tensor_methods;             /* methods only a tensor has (`unsqueeze`, `narrow`) */
    oom_strlist device_constructors;        /* calls making a device object (`torch.device`) */
    oom_strlist tensor_view_attributes;     /* a tensor's attributes that are its own storage (`T`, `data`) */
    oom_strlist gpu_methods;                /* tensor methods putting it on a GPU, any arguments (`cuda`) */
    oom_strlist gpu_device_words;           /* words naming a GPU device in a string (`cuda`, `mps`) */
    oom_strlist dtypes;                     /* the dtypes (`torch.float16`): `.to(dtype)` casts */
    oom_strlist size_keeping_methods;       /* tensor methods giving no more elements than the tensor (`unsqueeze`) */
    oom_strlist device_placing_libraries;   /* top-level packages that place models themselves */
    oom_strlist target_placing_methods;     /* tensor methods putting it where their argument says (`to`) */
    oom_strlist factory_target_keywords;    /* factory keywords naming the tensor to write into (`out`) */
    oom_strlist input_placing_wrappers;     /* wrappers moving their inputs to the module's device (DDP) */
    oom_strlist option_decorators; /* decorators declaring a command-line option of the function (`click.option`) */
    oom_strlist flag_definers;      /* calls defining a flag by name and default (absl's `flags.DEFINE_integer`) */
    oom_strlist int_flag_definers;  /* those of them whose flag takes a whole number */
    oom_strlist bool_flag_definers; /* those of them whose flag is a switch */
    oom_strlist opt_level_initializers; /* calls setting mixed precision by opt_level= (`apex.amp.initialize`) */
    oom_strlist record_constructors;    /* objects holding their keywords as attributes (`ml_collections.ConfigDict`) */
    oom_strlist path_joiners;           /* functions joining path strings (`os.path.join`) */
    oom_strlist optimizer_constructors; /* calls making an optimizer over the parameters given (`torch.optim.Adam`) */
    oom_strlist parameter_methods;      /* a module's methods giving its parameters (`parameters`) */
    oom_strlist environment_makers;     /* calls making an environment by its id (`gym.make`) */
    /* distributed: what numbers a job's processes */
    oom_strlist global_rank_calls;          /* calls giving the process's rank in the whole job (`dist.get_rank`) */
    oom_strlist global_rank_variables;      /* a launcher's environment variables holding it (`RANK`) */
    oom_strlist launcher_variables;         /* variables a multi-node launcher sets (`RANK`, `LOCAL_RANK`) */
    oom_strlist environment_mappings;       /* the environment as a mapping (`os.environ`) */
    oom_strlist environment_readers;        /* calls reading one variable of it (`os.getenv`) */
    oom_strlist value_keeping_builtins;     /* casts that keep the number (`int`, `str`) */
    oom_strlist process_spawners;           /* calls starting the job's processes from the script (`mp.spawn`) */
    oom_strlist process_group_initializers; /* calls building the process group (`init_process_group`) */
    oom_lib_environment *environments;
    size_t environment_count;
} oom_library;

/* The library knowledge, parsed from the embedded file on the first call
 * (once per process, whatever the thread) and never changed after; NULL
 * when the embedded file is malformed (a build defect: the unit tests load
 * it), with the reason in oom_library_error(). */
const oom_library *oom_library_get(void);
const char *oom_library_error(void);
/* Parses a library file's text (tests; --rules could add one later). */
oom_library *oom_library_parse(const char *text, size_t len, oom_buf *err);
void oom_library_free(oom_library *lib);

bool oom_qpattern_match(const oom_qpattern *p, const char *qualname);
/* The index of the first pattern of `list` matching `qualname`, or -1. */
int oom_qpattern_find(const oom_qpattern *list, size_t count, const char *qualname);
/* Whether `s` (`len` bytes, not terminated) is one of the list's. */
bool oom_library_lists(const oom_strlist *list, const char *s, size_t len);
/* The environment `gym.make(id)` makes, or NULL when the id is not listed. */
const oom_lib_environment *oom_library_environment(const oom_library *lib, const char *id);

#endif
