/**
 * Language models: weights, tokenizers, prompt formats and generation. Knows nothing about SQL.
 */
package dev.ladder.inference;
