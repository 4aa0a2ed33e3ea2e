package dev.ladder.common;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.databind.BeanDescription;
import com.fasterxml.jackson.databind.BeanProperty;
import com.fasterxml.jackson.databind.JsonMappingException;
import com.fasterxml.jackson.databind.JsonSerializer;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationConfig;
import com.fasterxml.jackson.databind.SerializerProvider;
import com.fasterxml.jackson.databind.jsontype.TypeSerializer;
import com.fasterxml.jackson.databind.module.SimpleModule;
import com.fasterxml.jackson.databind.ser.BeanSerializerModifier;
import com.fasterxml.jackson.databind.ser.ContextualSerializer;
import com.fasterxml.jackson.databind.ser.ResolvableSerializer;
import com.fasterxml.jackson.databind.type.CollectionType;
import com.fasterxml.jackson.databind.type.MapType;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.EnumMap;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SortedMap;
import java.util.SortedSet;
import java.util.function.Function;

/**
 * JSON whose bytes depend on the content only, for everything a run writes and compares (traces, pages).
 *
 * <p>{@code Map.of} and {@code Set.of} iterate in an order salted per JVM, and a hash map keyed by objects without
 * their own {@code hashCode} (enums, for one) in an order of memory addresses: two identical runs would write the
 * same trace with its keys shuffled. A mapper from here writes such a map's entries sorted by key and such a set's
 * elements sorted by their text. Maps and sets that have an order of their own (insertion, sorted, enum) keep it: a
 * pipeline that lists its parts in a meaningful order still shows them that way.
 */
public final class StableJson {

    private StableJson() {}

    /** A new mapper with unordered maps and sets written in a stable order. */
    public static ObjectMapper mapper() {
        return stable(new ObjectMapper());
    }

    /** {@code mapper}, with unordered maps and sets written in a stable order (returned for chaining). */
    public static ObjectMapper stable(ObjectMapper mapper) {
        SimpleModule module = new SimpleModule("ladder-stable-order");
        module.setSerializerModifier(new BeanSerializerModifier() {
            @Override
            public JsonSerializer<?> modifyMapSerializer(SerializationConfig config, MapType type,
                                                         BeanDescription description, JsonSerializer<?> serializer) {
                return new Ordering(serializer, StableJson::ordered);
            }

            @Override
            public JsonSerializer<?> modifyCollectionSerializer(SerializationConfig config, CollectionType type,
                                                                BeanDescription description, JsonSerializer<?> serializer) {
                return Set.class.isAssignableFrom(type.getRawClass()) || type.getRawClass() == Collection.class
                        ? new Ordering(serializer, StableJson::ordered) : serializer;
            }
        });
        return mapper.registerModule(module);
    }

    /** The map itself when its order means something; else its entries sorted by their key's text. */
    static Object ordered(Object value) {
        if (value instanceof Map<?, ?> map) {
            if (map.size() < 2 || map instanceof LinkedHashMap || map instanceof SortedMap || map instanceof EnumMap) {
                return map;
            }
            List<Map.Entry<?, ?>> entries = new ArrayList<>(map.entrySet());
            entries.sort(Comparator.comparing(e -> String.valueOf(e.getKey())));
            Map<Object, Object> sorted = new LinkedHashMap<>();
            for (Map.Entry<?, ?> e : entries) sorted.put(e.getKey(), e.getValue());
            return sorted;
        }
        if (value instanceof Set<?> set) {
            if (set.size() < 2 || set instanceof LinkedHashSet || set instanceof SortedSet || set instanceof EnumSet) {
                return set;
            }
            List<Object> sorted = new ArrayList<>(set);
            sorted.sort(Comparator.comparing(String::valueOf));
            return new LinkedHashSet<>(sorted);
        }
        return value;
    }

    /** Hands the delegate a stably ordered copy; keeps the delegate's contextual and resolvable behaviour. */
    private static final class Ordering extends JsonSerializer<Object> implements ContextualSerializer,
            ResolvableSerializer {
        private final JsonSerializer<Object> delegate;
        private final Function<Object, Object> order;

        @SuppressWarnings("unchecked")
        Ordering(JsonSerializer<?> delegate, Function<Object, Object> order) {
            this.delegate = (JsonSerializer<Object>) delegate;
            this.order = order;
        }

        @Override
        public void serialize(Object value, JsonGenerator gen, SerializerProvider provider) throws IOException {
            delegate.serialize(order.apply(value), gen, provider);
        }

        @Override
        public void serializeWithType(Object value, JsonGenerator gen, SerializerProvider provider,
                                      TypeSerializer typeSer) throws IOException {
            delegate.serializeWithType(order.apply(value), gen, provider, typeSer);
        }

        @Override
        public boolean isEmpty(SerializerProvider provider, Object value) {
            return delegate.isEmpty(provider, value);
        }

        @Override
        public Class<Object> handledType() {
            return delegate.handledType();
        }

        @Override
        public JsonSerializer<?> createContextual(SerializerProvider provider, BeanProperty property)
                throws JsonMappingException {
            if (!(delegate instanceof ContextualSerializer c)) return this;
            JsonSerializer<?> contextual = c.createContextual(provider, property);
            return contextual == delegate ? this : new Ordering(contextual, order);
        }

        @Override
        public void resolve(SerializerProvider provider) throws JsonMappingException {
            if (delegate instanceof ResolvableSerializer r) r.resolve(provider);
        }
    }
}
