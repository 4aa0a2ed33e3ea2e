package dev.ladder.inference.text;

import dev.ladder.inference.ChatMessage;
import dev.ladder.inference.PromptFormat;
import dev.ladder.inference.model.ModelException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class PromptFormatsTest {

    private static final List<ChatMessage> MESSAGES = List.of(
            ChatMessage.system("  Answer with SQL.\n"),
            ChatMessage.user("\nHow many customers?  "));

    @Test
    void llama3ChatIsMetasFormat() {
        PromptFormat f = new Llama3ChatFormat();
        assertThat(f.name()).isEqualTo("llama3-chat");
        assertThat(f.writesBos()).isTrue();
        assertThat(f.format(MESSAGES)).isEqualTo(
                "<|begin_of_text|>"
                + "<|start_header_id|>system<|end_header_id|>\n\nAnswer with SQL.<|eot_id|>"
                + "<|start_header_id|>user<|end_header_id|>\n\nHow many customers?<|eot_id|>"
                + "<|start_header_id|>assistant<|end_header_id|>\n\n");
    }

    @Test
    void llama3ChatWithAssistantTurnsAndNoMessages() {
        PromptFormat f = new Llama3ChatFormat();
        assertThat(f.format(List.of())).isEqualTo(
                "<|begin_of_text|><|start_header_id|>assistant<|end_header_id|>\n\n");
        assertThat(f.format(List.of(ChatMessage.user("q"), ChatMessage.assistant("SELECT 1; "))))
                .isEqualTo("<|begin_of_text|><|start_header_id|>user<|end_header_id|>\n\nq<|eot_id|>"
                        + "<|start_header_id|>assistant<|end_header_id|>\n\nSELECT 1;<|eot_id|>"
                        + "<|start_header_id|>assistant<|end_header_id|>\n\n");
    }

    @Test
    void contentIsStrippedLikePythonStrip() {
        // Python's str.strip() (Jinja trim) removes NBSP, U+2007, U+0085 and U+001F; Java's String.strip() does not
        assertThat(Llama3ChatFormat.pythonStrip("\u00A0\u2007 x y \u0085\u001F\t")).isEqualTo("x y");
        assertThat(Llama3ChatFormat.pythonStrip("\u200Bx")).isEqualTo("\u200Bx"); // zero-width space is not space
        assertThat(Llama3ChatFormat.pythonStrip(" \n ")).isEmpty();
        for (char c = 0; c < 0x3100; c++) { // every Python whitespace is below U+3100
            boolean python = c <= 0x0D && c >= 0x09 || c >= 0x1C && c <= 0x20 || c == 0x85 || c == 0xA0
                    || c == 0x1680 || c >= 0x2000 && c <= 0x200A || c == 0x2028 || c == 0x2029 || c == 0x202F
                    || c == 0x205F || c == 0x3000;
            assertThat(Llama3ChatFormat.isPythonSpace(c)).as("U+%04X", (int) c).isEqualTo(python);
        }
    }

    @Test
    void completionJoinsContentsWithABlankLine() {
        PromptFormat f = new CompletionFormat();
        assertThat(f.name()).isEqualTo("completion");
        assertThat(f.writesBos()).isTrue();
        assertThat(f.format(List.of(ChatMessage.system("Schema: t(a)"), ChatMessage.user("Question: a?\nSQL:"))))
                .isEqualTo("<|begin_of_text|>Schema: t(a)\n\nQuestion: a?\nSQL:");
        assertThat(f.format(List.of(ChatMessage.system(""), ChatMessage.user("q"))))
                .isEqualTo("<|begin_of_text|>q");
        assertThat(new CompletionFormat("").format(List.of(ChatMessage.user("q")))).isEqualTo("q");
        assertThat(new CompletionFormat("").writesBos()).isFalse();
    }

    @Test
    void byName() {
        assertThat(PromptFormats.byName("llama3-chat")).isInstanceOf(Llama3ChatFormat.class);
        assertThat(PromptFormats.byName(" Completion ")).isInstanceOf(CompletionFormat.class);
        assertThatThrownBy(() -> PromptFormats.byName("alpaca"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("unknown prompt format 'alpaca'; known formats: llama3-chat, chatml, completion");
    }

    @Test
    void forModelPicksChatWhenThereIsAChatTemplate(@TempDir Path dir) throws IOException {
        Files.writeString(dir.resolve("tokenizer_config.json"), """
                {"bos_token": "<|begin_of_text|>",
                 "chat_template": "{{ bos_token }}{% for m in messages %}<|start_header_id|>{{ m['role'] }}{% endfor %}"}""");
        assertThat(PromptFormats.forModel(dir)).isInstanceOf(Llama3ChatFormat.class);
        Files.writeString(dir.resolve("tokenizer_config.json"), """
                {"chat_template": [{"name": "default", "template": "<|start_header_id|>"}]}""");
        assertThat(PromptFormats.forModel(dir)).isInstanceOf(Llama3ChatFormat.class);
    }

    @Test
    void forModelPicksCompletionWithoutChatTemplate(@TempDir Path dir) throws IOException {
        assertThat(PromptFormats.forModel(dir)).isInstanceOf(CompletionFormat.class);
        // a named BOS is written only when the model's tokenizer would add it itself
        Files.writeString(dir.resolve("tokenizer_config.json"), "{\"bos_token\": \"<s>\"}");
        assertThat(((CompletionFormat) PromptFormats.forModel(dir)).bos()).isEmpty();
        Files.writeString(dir.resolve("tokenizer_config.json"), "{\"bos_token\": \"<s>\", \"add_bos_token\": true}");
        assertThat(((CompletionFormat) PromptFormats.forModel(dir)).bos()).isEqualTo("<s>");
        Files.writeString(dir.resolve("tokenizer_config.json"), "{\"bos_token\": \"<|begin_of_text|>\"}");
        Files.writeString(dir.resolve("tokenizer.json"), """
                {"post_processor": {"type": "Sequence", "processors": [{"type": "ByteLevel"}, {"type": "TemplateProcessing",
                 "single": [{"SpecialToken": {"id": "<|begin_of_text|>", "type_id": 0}}, {"Sequence": {"id": "A", "type_id": 0}}]}]}}""");
        PromptFormat f = PromptFormats.forModel(dir);
        assertThat(((CompletionFormat) f).bos()).isEqualTo("<|begin_of_text|>");
        assertThat(f.writesBos()).isTrue();
    }

    @Test
    void chatMlTemplatesGetChatMlAndUnknownFamiliesFallBackToCompletion(@TempDir Path dir) throws IOException {
        Files.writeString(dir.resolve("tokenizer_config.json"),
                "{\"bos_token\": null, \"chat_template\": \"{% for m in messages %}<|im_start|>{{ m.role }}{% endfor %}\"}");
        PromptFormat chatml = PromptFormats.forModel(dir);
        assertThat(chatml).isInstanceOf(ChatMlFormat.class);
        assertThat(PromptFormats.hasChatFormat(dir)).isTrue();
        assertThat(chatml.format(List.of(ChatMessage.system("Answer in SQL."), ChatMessage.user("How many offices?"))))
                .isEqualTo("<|im_start|>system\nAnswer in SQL.<|im_end|>\n<|im_start|>user\nHow many offices?<|im_end|>\n"
                        + "<|im_start|>assistant\n");
        assertThat(chatml.writesBos()).isFalse();
        Files.writeString(dir.resolve("tokenizer_config.json"), "{\"chat_template\": \"[INST] {{ x }} [/INST]\"}");
        assertThat(PromptFormats.forModel(dir)).isInstanceOf(CompletionFormat.class);
        assertThat(PromptFormats.hasChatFormat(dir)).isFalse();
        assertThat(PromptFormats.byName("ChatML")).isInstanceOf(ChatMlFormat.class);
    }

    @Test
    void forModelRejectsMalformedConfigsAndBadDirectories(@TempDir Path dir) throws IOException {
        Files.writeString(dir.resolve("tokenizer_config.json"), "{oops");
        assertThatThrownBy(() -> PromptFormats.forModel(dir))
                .isInstanceOf(ModelException.class).hasMessageContaining("tokenizer_config.json");
        assertThatThrownBy(() -> PromptFormats.forModel(dir.resolve("nope")))
                .isInstanceOf(ModelException.class).hasMessageContaining("nope");
    }
}
