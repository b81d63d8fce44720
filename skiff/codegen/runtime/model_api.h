/* The C interface of a model compiled by `skiff compile` (model.h in the output folder is
 * this header with the model's inputs and outputs listed on top). One context per thread:
 * skiff_model_run is safe on separate contexts at once, never on one context from two
 * threads.
 *
 *   skiff_model* m = skiff_model_create(NULL);          // NULL: embedded parameters
 *   skiff_tensor in = {SKIFF_FLOAT32, 2, {1, 784}, x};
 *   skiff_tensor out;
 *   if (skiff_model_run(m, &in, &out) != 0) puts(skiff_model_last_error());
 *   // out.data stays valid until the next run or destroy of m
 *   skiff_model_destroy(m);
 */
#ifndef SKIFF_CODEGEN_MODEL_API_H_
#define SKIFF_CODEGEN_MODEL_API_H_

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Element types; the numbers are skiff's DType numbers. */
enum { SKIFF_FLOAT32 = 0, SKIFF_FLOAT64 = 1, SKIFF_INT32 = 2, SKIFF_INT64 = 3, SKIFF_BOOL = 4 };
#define SKIFF_MAX_RANK 8

/* A dense row-major array that the caller owns (inputs) or the context owns (outputs). */
typedef struct skiff_tensor {
  int dtype;
  int rank;
  int64_t dims[SKIFF_MAX_RANK];
  void* data;
} skiff_tensor;

/* An input or output of the model: its variable name, dtype and dims (-1: any size). */
typedef struct skiff_io {
  const char* name;
  int dtype;
  int rank;
  int64_t dims[SKIFF_MAX_RANK];
} skiff_io;

typedef struct skiff_model skiff_model;

/* The model's inputs (fed variables) and outputs (fetched variables), in order. */
int skiff_model_num_inputs(void);
const skiff_io* skiff_model_input(int index);
int skiff_model_num_outputs(void);
const skiff_io* skiff_model_output(int index);
/* True (1) when the parameters are embedded in the binary; else create needs a path. */
int skiff_model_params_embedded(void);

/* A new context holding its own copy of the parameters (from `params_path`, a .skparams
 * file, or the embedded ones when it is NULL); NULL on failure (see last_error). */
skiff_model* skiff_model_create(const char* params_path);
/* Runs the program once: `inputs` in skiff_model_input order; `outputs` (one per output)
 * receive views of the context's results, valid until the next run or destroy. Training
 * programs update the context's parameters on every run. Returns 0, or -1 on error. */
int skiff_model_run(skiff_model* model, const skiff_tensor* inputs, skiff_tensor* outputs);
/* A view of the current value of variable `name` (a parameter, an optimizer state or any
 * other variable of block 0); 0 on success, -1 when there is no such variable. */
int skiff_model_variable(skiff_model* model, const char* name, skiff_tensor* value);
void skiff_model_destroy(skiff_model* model);
/* The message of the calling thread's last failed call. */
const char* skiff_model_last_error(void);

/* The CPU the model was compiled for (skiff compile --cpu: "x86-64-v3", "x86-64-v4",
 * "native", ...) and the instruction-set features that takes, space-separated. */
const char* skiff_model_cpu(void);
const char* skiff_model_cpu_features(void);
/* NULL when this CPU has every feature the model was compiled for; else a message naming
 * the missing ones. skiff_model_create then fails with it, and the executable `model`
 * stops with it (exit status 3) before running any of the model's code. */
const char* skiff_model_cpu_error(void);

#ifdef __cplusplus
}
#endif

#endif /* SKIFF_CODEGEN_MODEL_API_H_ */
