/**
 * LoRA/QLoRA adapters: PEFT adapter files, merging into base weights, training-set export.
 */
package dev.ladder.adapters;
