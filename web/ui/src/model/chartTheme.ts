// The charts' font, shared by components/Chart.tsx and the pure chart options of model/.
export const kFont = "Inter, 'Segoe UI', Roboto, 'Helvetica Neue', Arial, sans-serif";
