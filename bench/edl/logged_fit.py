"""What both jobs of the autoscaling experiment do after building their model and data:
ElasticTrainer's fit, every applied step logged to steps/steps.PID.jsonl (the experiment
checks from them that every sample was trained on exactly once)."""
import json
import os
import time

from skiff.distributed import elastic


def logged_fit(name, model, optimizer, data, batch_size, loss_fn, epochs):
    os.makedirs("steps", exist_ok=True)
    log = open(os.path.join("steps", f"steps.{os.getpid()}.jsonl"), "a", buffering=1)
    trainer = elastic.ElasticTrainer(
        model, optimizer, data, batch_size=batch_size, loss_fn=loss_fn, step_timeout=30.0,
        wait_timeout=300.0,
        on_step=lambda info: log.write(json.dumps(dict(info, time=time.time())) + "\n"))
    steps = trainer.fit(epochs=epochs)
    print(f"{name} worker {os.getpid()}: done, {steps} steps", flush=True)
